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

// startXvfb runs a private X server and returns its DISPLAY. Test
// processes run side by side (task test's two e2e processes) may reach
// for the same number: the loser's Xvfb exits on the other's lock, and the
// socket it would then find is the other's, gone when that test ends. So a
// display counts as ours only while our Xvfb still runs once its socket is
// there; else the next number is tried.
func startXvfb(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "Xvfb", "for headful tests (apt-get install xvfb)")
	for n := 90 + os.Getpid()%50; n < 200; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); err == nil {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X%d-lock", n)); err == nil {
			continue
		}
		cmd := exec.Command("Xvfb", fmt.Sprintf(":%d", n), "-screen", "0", "1280x800x24", "-nolisten", "tcp")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		sock := fmt.Sprintf("/tmp/.X11-unix/X%d", n)
		up := false
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline) && !up; {
			select {
			case <-exited:
				deadline = time.Time{} // another Xvfb holds n
				continue
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := os.Stat(sock); err == nil {
				// Ours only if it still runs: the socket may be the
				// winner's.
				select {
				case <-exited:
				case <-time.After(100 * time.Millisecond):
					up = true
				}
			}
		}
		if !up {
			select {
			case <-exited:
				continue
			default:
				cmd.Process.Kill()
				<-exited
				t.Fatalf("Xvfb :%d did not come up", n)
			}
		}
		// SIGTERM: Xvfb removes its socket (killed, it would leave it, and
		// enough of those leave no display to pick).
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		})
		return fmt.Sprintf(":%d", n)
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
