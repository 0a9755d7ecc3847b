package e2e

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// startXvfb runs a private X server and returns its DISPLAY. Xvfb picks
// a free display itself (-displayfd), and is stopped with SIGTERM so that
// it removes its socket: killed, it would leave /tmp/.X11-unix/X<n> behind,
// and enough of those leave no display to pick.
func startXvfb(t *testing.T) string {
	t.Helper()
	testenv.Tool(t, "Xvfb", "for headful tests (apt-get install xvfb)")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatal(err)
	}
	w.Close()
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
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 32)
		n, _ := r.Read(b)
		got <- strings.TrimSpace(string(b[:n]))
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatal("Xvfb did not say which display it took")
		}
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat("/tmp/.X11-unix/X" + n); err == nil {
				break
			}
		}
		return ":" + n
	case <-time.After(20 * time.Second):
		t.Fatal("Xvfb did not come up in 20 s")
	}
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
