package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// startXvfb runs a private X server and returns its DISPLAY.
func startXvfb(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "Xvfb", "for headful tests (apt-get install xvfb)")
	for n := 90 + os.Getpid()%50; n < 200; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		cmd := exec.Command("Xvfb", fmt.Sprintf(":%d", n), "-screen", "0", "1280x800x24", "-nolisten", "tcp")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// SIGTERM: Xvfb removes its socket (killed, it would leave it, and
		// enough of those leave no display to pick).
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		})
		sock := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if _, err := os.Stat(sock); err == nil {
				return fmt.Sprintf(":%d", n)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("Xvfb :%d did not come up", n)
	}
	t.Fatal("no free X display")
	return ""
}

// TestHeadfulUnderXvfb: with a display and no headless setting the window
// is real and open_browser says a person may be watching.
func TestHeadfulUnderXvfb(t *testing.T) {
	needBrowser(t)
	display := startXvfb(t)
	s := friendly(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_HEADLESS=auto", "DISPLAY="+display)
	env := call(t, cs, "open_browser", nil)
	wantStatus(t, env, "ok")
	if env["attended"] != true {
		t.Errorf("attended = %v under a display, want true", env["attended"])
	}
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	env = call(t, cs, "get_url", nil)
	if env["title"] != "Home" || env["tab_count"] != float64(1) {
		t.Errorf("get_url = %v", env)
	}
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	if p := browserPIDs(t, dir); len(p) != 0 {
		t.Errorf("headful browser still running after close: %v", p)
	}
}
