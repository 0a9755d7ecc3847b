package main

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeExe is an executable at a path that needs quoting in a unit.
func fakeExe(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), `ly rad%x$y`)
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSystemdUnit(t *testing.T) {
	exe := fakeExe(t)
	unit := systemdUnit(exe, []string{"--data-dir", "/d d$x"})
	wantExec := `ExecStart="` + strings.ReplaceAll(exe, "%", "%%") + `" serve --data-dir "/d d$$x"`
	for _, want := range []string{wantExec, "StandardError=journal", "WantedBy=default.target", "Restart=on-failure"} {
		if !strings.Contains(unit, want+"\n") {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	verifyUnit(t, unit, true)
	// The check can fail: a unit naming no binary is refused.
	verifyUnit(t, systemdUnit("/nonexistent/lyrad", nil), false)
}

// verifyUnit runs systemd-analyze verify on unit when it is installed. It
// is optional, in CI too: the generated text is checked above either way.
func verifyUnit(t *testing.T, unit string, good bool) {
	t.Helper()
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("no systemd-analyze: unit not verified")
		return
	}
	p := filepath.Join(t.TempDir(), "lyrad.service")
	if err := os.WriteFile(p, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(sa, "verify", p).CombinedOutput()
	if strings.Contains(string(out), "Failed to initialize manager") {
		t.Skipf("systemd-analyze cannot run here: %s", out)
	}
	if good && err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s\n%s", err, out, unit)
	}
	if !good && err == nil {
		t.Fatalf("systemd-analyze verify accepted a broken unit:\n%s", unit)
	}
}

func TestLaunchdPlist(t *testing.T) {
	pl := launchdPlist("/Apps/a&b/lyrad", []string{"--data-dir", "/x<y"}, "/Users/u/Library/Logs/lyrad.log")
	var doc struct {
		Dict struct {
			Keys    []string `xml:"key"`
			Strings []string `xml:"string"`
			Array   struct {
				Strings []string `xml:"string"`
			} `xml:"array"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal([]byte(pl), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, pl)
	}
	if got := strings.Join(doc.Dict.Array.Strings, "|"); got != "/Apps/a&b/lyrad|serve|--data-dir|/x<y" {
		t.Errorf("ProgramArguments %q", got)
	}
	if strings.Join(doc.Dict.Keys, ",") != "Label,ProgramArguments,RunAtLoad,KeepAlive,ProcessType,StandardOutPath,StandardErrorPath" ||
		doc.Dict.Strings[0] != "lyrad" || doc.Dict.Strings[2] != "/Users/u/Library/Logs/lyrad.log" {
		t.Errorf("plist: %+v\n%s", doc.Dict, pl)
	}
	if lint, err := exec.LookPath("plutil"); err == nil {
		p := filepath.Join(t.TempDir(), "lyrad.plist")
		os.WriteFile(p, []byte(pl), 0o644)
		if out, err := exec.Command(lint, "-lint", p).CombinedOutput(); err != nil {
			t.Fatalf("plutil -lint: %v\n%s", err, out)
		}
	}
}

func withGOOS(t *testing.T, os string) {
	old := goos
	goos = os
	t.Cleanup(func() { goos = old })
}

func TestServiceInstallUninstallStatus(t *testing.T) {
	withGOOS(t, "linux")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	dd := t.TempDir()
	unit := filepath.Join(home, ".config", "systemd", "user", "lyrad.service")

	code, out, _ := runCmd(t, "service", "install", "--dry-run", "--data-dir", dd)
	if code != 0 || !strings.HasPrefix(out, "[Unit]\n") || !strings.Contains(out, "serve --data-dir "+dd+"\n") {
		t.Fatalf("dry run: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(unit); err == nil {
		t.Fatal("--dry-run wrote the unit")
	}
	dry := out

	code, out, errOut := runCmd(t, "service", "install", "--data-dir", dd)
	if code != 0 || !strings.Contains(out, "systemctl --user enable --now lyrad.service") {
		t.Fatalf("install: exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(unit); err != nil || string(b) != dry {
		t.Fatalf("installed unit differs from --dry-run (%v):\n%s", err, b)
	}
	if _, out, _ = runCmd(t, "service", "status", "--data-dir", dd); !strings.HasPrefix(out, "installed: "+unit) {
		t.Errorf("status after install:\n%s", out)
	}
	if _, out, _ = runCmd(t, "service", "status", "--data-dir", t.TempDir()); !strings.Contains(out, "not what install would write") {
		t.Errorf("status for another data dir:\n%s", out)
	}

	// What systemctl enable would have made goes with the unit.
	wants := filepath.Join(filepath.Dir(unit), "default.target.wants")
	os.MkdirAll(wants, 0o755)
	if err := os.Symlink(unit, filepath.Join(wants, "lyrad.service")); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(t, "service", "uninstall", "--data-dir", dd)
	if code != 0 || !strings.Contains(out, "systemctl --user disable --now lyrad.service") {
		t.Fatalf("uninstall: exit %d\n%s", code, out)
	}
	for _, p := range []string{unit, filepath.Join(wants, "lyrad.service")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s left behind", p)
		}
	}
	if _, out, _ = runCmd(t, "service", "status", "--data-dir", dd); !strings.HasPrefix(out, "not installed") {
		t.Errorf("status after uninstall:\n%s", out)
	}
}

func TestServiceLaunchdPath(t *testing.T) {
	withGOOS(t, "darwin")
	home := t.TempDir()
	t.Setenv("HOME", home)
	p, err := newServicePlatform("/usr/local/bin/lyrad", nil)
	if err != nil || p.path != filepath.Join(home, "Library", "LaunchAgents", "lyrad.plist") || !strings.Contains(p.contents, "<key>Label</key>") {
		t.Fatalf("%v %+v", err, p)
	}
}

func TestServiceBadArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"service"}, "install, uninstall or status"},
		{[]string{"service", "start"}, "install, uninstall or status"},
		{[]string{"service", "install", "--dryrun"}, "-dryrun"},
		{[]string{"service", "uninstall", "--dry-run"}, "-dry-run"},
	} {
		code, out, errOut := runCmd(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", c.args, code, out, errOut)
		}
	}
}

// TestServiceInstallTakesServeFlags: install writes serve's flags into the
// unit as given (paths made absolute), and the unit still verifies.
func TestServiceInstallTakesServeFlags(t *testing.T) {
	withGOOS(t, "linux")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	dd := t.TempDir()
	wd, _ := os.Getwd()
	code, out, errOut := runCmd(t, "service", "install", "--dry-run", "--data-dir", dd, "--http", "--port", "9123", "--headless",
		"--chrome", "/usr/bin/chromium", "--log-level", "debug", "--log-file", "logs/lyrad.log")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := " serve --data-dir " + dd + " --http --port 9123 --headless --chrome /usr/bin/chromium --log-level debug --log-file " + filepath.Join(wd, "logs", "lyrad.log")
	if got := execStart(out); !strings.HasSuffix(got, want) {
		t.Errorf("ExecStart=%s\nwant it to end with %q", got, want)
	}
	verifyUnit(t, out, true)
	// A channel is written as given; --no-headless too; --port only with --http.
	_, out, _ = runCmd(t, "service", "install", "--dry-run", "--data-dir", dd, "--no-headless", "--chrome", "chrome-beta", "--http")
	if got := execStart(out); !strings.HasSuffix(got, " serve --data-dir "+dd+" --http --no-headless --chrome chrome-beta") {
		t.Errorf("ExecStart=%s", got)
	}
	// What status compares with is what install would write with the same flags.
	if code, _, errOut := runCmd(t, "service", "install", "--data-dir", dd, "--http"); code != 0 {
		t.Fatal(errOut)
	}
	if _, out, _ = runCmd(t, "service", "status", "--data-dir", dd, "--http"); !strings.HasPrefix(out, "installed: ") {
		t.Errorf("status with the installed flags:\n%s", out)
	}
	if _, out, _ = runCmd(t, "service", "status", "--data-dir", dd); !strings.Contains(out, "it runs:") || !strings.Contains(out, " --http") {
		t.Errorf("status with other flags does not show what the unit runs:\n%s", out)
	}
	// launchd gets the same arguments.
	withGOOS(t, "darwin")
	_, out, _ = runCmd(t, "service", "install", "--dry-run", "--data-dir", dd, "--http", "--port", "9123")
	if !strings.Contains(out, "<string>serve</string>\n\t\t<string>--data-dir</string>\n\t\t<string>"+dd+"</string>\n\t\t<string>--http</string>\n\t\t<string>--port</string>\n\t\t<string>9123</string>\n") {
		t.Errorf("plist:\n%s", out)
	}
}

func TestServiceInstallHelpAndPortWithoutHTTP(t *testing.T) {
	withGOOS(t, "linux")
	t.Setenv("HOME", t.TempDir())
	if code, _, errOut := runCmd(t, "service", "install", "--help"); code != 0 || !strings.Contains(errOut, "-http") || !strings.Contains(errOut, "-dry-run") {
		t.Errorf("service install --help: exit %d\n%s", code, errOut)
	}
	for _, args := range [][]string{{"service", "install", "--dry-run", "--port", "9000"}, {"serve", "--port", "9000"}} {
		code, _, errOut := runCmd(t, append(args, "--data-dir", t.TempDir())...)
		if code != 2 || !strings.Contains(errOut, "--http --port") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
	if code, _, errOut := runCmd(t, "service", "install", "--dry-run", "--log-level", "loud", "--data-dir", t.TempDir()); code != 2 || !strings.Contains(errOut, "debug, info") {
		t.Errorf("a bad --log-level: exit %d, %q", code, errOut)
	}
}
