package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hostStdio spawns `lyrad stdio args...` the way an agent host does: its
// own environment (HOME, PATH and env), no LYRA_BROWSER_* setting.
func hostStdio(t *testing.T, env []string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(lyradBin, append([]string{"stdio"}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LYRA_BROWSER_CONSENT_CHANNEL=off"}, env...)
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-host", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(proto2026))
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestClientHosts: --client hermes keeps its data in $HERMES_HOME/browser
// (~/.hermes/browser) and runs headless even with a DISPLAY set; vega (told,
// or detected from VEGA_DATA_DIR) keeps it in $VEGA_DATA_DIR/browser and
// follows the display.
func TestClientHosts(t *testing.T) {
	needBrowser(t)
	home := t.TempDir()
	// A display that does not exist: a window would fail to open, so an
	// open browser is a headless one.
	hermes := hostStdio(t, []string{"HOME=" + home, "DISPLAY=:31999"}, "--client", "hermes")
	env := call(t, hermes, "open_browser", nil)
	wantStatus(t, env, "ok")
	if env["attended"] != false {
		t.Errorf("--client hermes with a DISPLAY: attended = %v, want false (headless)", env["attended"])
	}
	dir := filepath.Join(home, ".hermes", "browser")
	if len(browserPIDs(t, dir)) != 1 {
		t.Errorf("no browser on %s's profile", dir)
	}
	wantStatus(t, call(t, hermes, "close_browser", nil), "ok")
	hermes.Close()
	waitFor(t, "hermes' audit trail in "+dir, 30*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
		return strings.Contains(string(b), `"tool":"open_browser"`)
	})
	if _, err := os.Stat(filepath.Join(home, ".lyra-browser")); err == nil {
		t.Error("--client hermes also wrote ~/.lyra-browser")
	}

	vegaData := t.TempDir()
	vega := hostStdio(t, []string{"HOME=" + home, "VEGA_DATA_DIR=" + vegaData})
	env = call(t, vega, "open_browser", nil)
	wantStatus(t, env, "ok")
	if env["attended"] != false {
		t.Errorf("vega with no display: attended = %v, want false", env["attended"])
	}
	if len(browserPIDs(t, filepath.Join(vegaData, "browser"))) != 1 {
		t.Errorf("no browser on $VEGA_DATA_DIR/browser's profile")
	}
	wantStatus(t, call(t, vega, "close_browser", nil), "ok")
}
