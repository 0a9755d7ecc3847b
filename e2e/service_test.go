package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServiceUnitRunsServe: the unit `service install` writes runs what
// `serve` runs with the same flags. The ExecStart of a unit generated with
// --http --port 0 --headless --chrome --log-level --log-file is run as the
// service manager would (its own environment: no LYRA_BROWSER_* setting, no
// display): it serves HTTP, logs at that level to that file, and launches
// that browser headless.
func TestServiceUnitRunsServe(t *testing.T) {
	browser := needBrowser(t)
	home, dd := t.TempDir(), t.TempDir()
	logFile := filepath.Join(t.TempDir(), "lyrad.log")
	cmd := exec.Command(lyradBin, "service", "install", "--dry-run", "--data-dir", dd, "--http", "--port", "0", "--headless",
		"--chrome", browser, "--log-level", "debug", "--log-file", logFile)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("service install --dry-run: %v", err)
	}
	var execStart string
	for _, l := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(l, "ExecStart="); ok {
			execStart = s
		}
	}
	if strings.ContainsAny(execStart, `"\%$`) {
		t.Fatalf("ExecStart needs unquoting, which this test does not do: %s", execStart)
	}
	argv := strings.Fields(execStart)
	if len(argv) < 2 || argv[0] != lyradBin || argv[1] != "serve" {
		t.Fatalf("ExecStart=%s", execStart)
	}
	t.Logf("ExecStart=%s", execStart)
	for _, want := range []string{"--http", "--headless", "--chrome", "--log-level", "--log-file"} {
		if !strings.Contains(execStart, " "+want+" ") && !strings.HasSuffix(execStart, " "+want) {
			t.Errorf("ExecStart lacks %s", want)
		}
	}

	serve := exec.Command(argv[0], argv[1:]...)
	serve.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	l := startServeCmd(t, serve, dd, 30*time.Second)
	cs := l.connectHTTP(t, proto2026)
	env := call(t, cs, "open_browser", nil)
	wantStatus(t, env, "ok")
	if env["attended"] != false {
		t.Errorf("attended = %v: --headless not honoured", env["attended"])
	}
	if bargv := browserCmdline(t, dd); !strings.Contains(strings.Join(bargv, " "), " --headless") {
		t.Errorf("the browser is not headless: %v", bargv)
	}
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	// --log-file and --log-level: debug lines in that file.
	waitFor(t, "debug lines in the log file", 30*time.Second, func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Contains(string(b), `"level":"debug"`)
	})
}
