package e2e

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/internal/testenv"
)

// userHand is the person at the window: real input on the X display
// through xdotool, never through CDP, so the browser sees a real user
// activation.
type userHand struct {
	t       *testing.T
	display string
	x0, y0  int // the viewport's top left on the screen
}

// newUserHand finds the browser's viewport on the screen: the window's
// place plus the browser's own bars (the window's height less the
// viewport's, from a screenshot, a read that works during a takeover).
func newUserHand(t *testing.T, display string, cs *mcp.ClientSession) *userHand {
	t.Helper()
	testenv.Tool(t, "xdotool", "to act as the user on the X display (apt-get install xdotool)")
	u := &userHand{t: t, display: display}
	geo := map[string]int{}
	for _, line := range strings.Fields(u.xdo("search", "--onlyvisible", "--class", "chromium", "getwindowgeometry", "--shell")) {
		if k, v, ok := strings.Cut(line, "="); ok {
			n, _ := strconv.Atoi(v)
			geo[k] = n
		}
	}
	shot := call(t, cs, "screenshot", nil)
	vh, _ := shot["height"].(float64)
	if geo["HEIGHT"] == 0 || vh == 0 {
		t.Fatalf("window %v, viewport height %v", geo, vh)
	}
	u.x0, u.y0 = geo["X"], geo["Y"]+geo["HEIGHT"]-int(vh)
	return u
}

func (u *userHand) xdo(args ...string) string {
	u.t.Helper()
	cmd := exec.Command("xdotool", args...)
	cmd.Env = append(cmd.Environ(), "DISPLAY="+u.display)
	out, err := cmd.CombinedOutput()
	if err != nil {
		u.t.Fatalf("xdotool %v: %v %s", args, err, out)
	}
	return string(out)
}

// click clicks the mouse at (x, y) of the viewport.
func (u *userHand) click(x, y int) {
	u.t.Helper()
	u.xdo("mousemove", strconv.Itoa(u.x0+x), strconv.Itoa(u.y0+y))
	time.Sleep(100 * time.Millisecond) // let the pointer settle before the press
	u.xdo("click", "1")
}

// key presses keys on the focused window (xdotool key names).
func (u *userHand) key(keys ...string) {
	u.t.Helper()
	u.xdo(append([]string{"key", "--clearmodifiers"}, keys...)...)
}

// typeText types text on the focused window.
func (u *userHand) typeText(s string) {
	u.t.Helper()
	u.xdo("type", "--delay", "20", s)
}
