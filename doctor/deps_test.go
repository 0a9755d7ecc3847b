package doctor

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/lyrad/lyrad/internal/testenv"
)

// TestDoctorLinksOnlyWhatItChecks: doctor looks at lyrad from the outside,
// the way a scanner would, so it links none of the stack it checks. Its
// files (the token, the endpoint) are read through datadir, which owns
// their formats.
func TestDoctorLinksOnlyWhatItChecks(t *testing.T) {
	goTool := testenv.Tool(t, "go", "to list doctor's dependencies")
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const mod = "github.com/lyrad/lyrad/"
	for _, p := range strings.Fields(string(out)) {
		name, ok := strings.CutPrefix(p, mod)
		if !ok {
			continue
		}
		switch name {
		case "doctor", "chrome", "datadir", "internal/proc":
		default:
			t.Errorf("doctor links %s", p)
		}
	}
}
