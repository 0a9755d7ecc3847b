package e2e

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/doctor"
)

// runDoctor runs `lyrad doctor args...` on dataDir and returns stdout and the
// exit code; stderr is kept apart so --json can be parsed as it is.
func runDoctor(t *testing.T, dataDir string, args ...string) (string, int) {
	t.Helper()
	cmd := execLyrad(dataDir, append([]string{"doctor"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("lyrad doctor: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("lyrad doctor stderr:\n%s", stderr.String())
	}
	return string(out), code
}

// line returns the output line of the named check.
func line(t *testing.T, out, name string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		for _, st := range []string{"PASS", "FAIL", "SKIP"} {
			if strings.HasPrefix(l, st+"  "+name) {
				return l
			}
		}
	}
	t.Fatalf("no %q line in:\n%s", name, out)
	return ""
}

func wantLine(t *testing.T, out, name, status string) string {
	t.Helper()
	l := line(t, out, name)
	if !strings.HasPrefix(l, status+"  ") {
		t.Errorf("want %s: %s", status, l)
	}
	return l
}

// noEndpoint checks that the output names no WebSocket URL, no DevTools path
// and none of the given ports.
func noEndpoint(t *testing.T, out string, ports ...int) {
	t.Helper()
	for _, s := range []string{"ws://", "/devtools/browser/"} {
		if strings.Contains(out, s) {
			t.Errorf("doctor printed %q:\n%s", s, out)
		}
	}
	for _, p := range ports {
		if regexp.MustCompile(`\b` + strconv.Itoa(p) + `\b`).MatchString(out) {
			t.Errorf("doctor printed the debugging port:\n%s", out)
		}
	}
}

func TestDoctorFreshDataDir(t *testing.T) {
	needBrowser(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	out, code := runDoctor(t, dataDir)
	t.Logf("lyrad doctor:\n%s", out)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	for _, name := range []string{doctor.NameBrowserFound, doctor.NameBrowserStarted, doctor.NameListeners,
		doctor.NameOrigin, doctor.NameForeignHost, doctor.NameActivePort, doctor.NameProfileMode} {
		wantLine(t, out, name, "PASS")
	}
	if l := wantLine(t, out, doctor.NameSocketMode, "SKIP"); !strings.Contains(l, "no daemon running") {
		t.Errorf("socket line: %s", l)
	}
	wantLine(t, out, doctor.NameHTTPToken, "SKIP")
	if !strings.Contains(line(t, out, doctor.NameOrigin), "/json/version answers") {
		t.Error("the residual exposure (/json/version answers) is not named")
	}
	if strings.Contains(out, "FAIL") {
		t.Errorf("a FAIL on a fresh data dir:\n%s", out)
	}
	noEndpoint(t, out)
	// Doctor looks; it creates nothing: no data dir, no token, and its
	// throwaway profile is gone.
	if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
		t.Errorf("doctor created the data dir: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(os.TempDir(), "lyrad-doctor-*")); len(m) > 0 {
		// Another doctor may run at the same time; only warn.
		t.Logf("throwaway profiles present after the run: %v", m)
	}
}

func TestDoctorJSON(t *testing.T) {
	needBrowser(t)
	out, code := runDoctor(t, t.TempDir(), "--json")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var r struct {
		Checks  []struct{ Name, Status, Detail, Fix string }
		OK      bool
		Browser struct {
			Path, Version string
			Headless      bool
		}
		HTTP map[string]any
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.OK || len(r.Checks) < 10 || r.Browser.Path == "" || r.Browser.Version == "" || !r.Browser.Headless || r.HTTP == nil {
		t.Errorf("report: %+v", r)
	}
	for _, c := range r.Checks {
		if c.Name == "" || (c.Status != "PASS" && c.Status != "SKIP") {
			t.Errorf("check %+v", c)
		}
	}
	noEndpoint(t, out)
}

func TestDoctorWithDaemon(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	l := startServe(t, "")
	// The daemon's browser is up and on a page: doctor must leave it be.
	cs := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	pids := browserPIDs(t, l.dataDir)
	if len(pids) != 1 {
		t.Fatalf("browser pids %v", pids)
	}
	var ports []int
	ls, err := doctor.Listeners(pids[0])
	if err != nil || len(ls) == 0 {
		t.Fatalf("the daemon's browser listens on nothing? %v %v", ls, err)
	}
	for _, x := range ls {
		ports = append(ports, int(x.Addr.Port()))
	}

	out, code := runDoctor(t, l.dataDir)
	t.Logf("lyrad doctor:\n%s", out)
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	wantLine(t, out, doctor.NameSocketMode, "PASS")
	wantLine(t, out, doctor.NamePWSocketMode, "PASS")
	wantLine(t, out, doctor.NameDaemonPorts, "PASS")
	wantLine(t, out, doctor.NameHTTPToken, "PASS")
	wantLine(t, out, doctor.NameHTTPOrigin, "PASS")
	wantLine(t, out, doctor.NameHTTPHost, "PASS")
	wantLine(t, out, doctor.NameAuditMode, "PASS")
	// The persistent profile is in use, checked too.
	persistent := filepath.Join(l.dataDir, "profile")
	if pl := wantLine(t, out, doctor.NameProfileMode, "PASS"); !strings.Contains(pl, persistent+" 0700") {
		t.Errorf("persistent profile not checked: %s", pl)
	}
	if al := wantLine(t, out, doctor.NameActivePort, "PASS"); !strings.Contains(al, persistent) {
		t.Errorf("persistent profile not checked: %s", al)
	}
	if !strings.Contains(out, "token: "+l.token+"\n") {
		t.Errorf("token not printed:\n%s", out)
	}
	if !strings.Contains(out, "endpoint: "+l.httpURL) {
		t.Errorf("endpoint not printed:\n%s", out)
	}
	noEndpoint(t, out, ports...)

	// The daemon's browser was not disturbed: same process, same page.
	if now := browserPIDs(t, l.dataDir); len(now) != 1 || now[0] != pids[0] {
		t.Errorf("browser pids %v after doctor, want %v", now, pids)
	}
	env := call(t, cs, "get_url", nil)
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/" || env["tab_count"] != float64(1) {
		t.Errorf("after doctor: %v", env)
	}

	// --json carries the same token and endpoint.
	out, code = runDoctor(t, l.dataDir, "--json")
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != 0 {
		t.Fatalf("--json (exit %d): %v\n%s", code, err, out)
	}
	if !r.OK || !r.HTTP.Serving || r.HTTP.Token != l.token || r.HTTP.URL != l.httpURL {
		t.Errorf("--json: ok=%v http=%+v", r.OK, r.HTTP)
	}

	// On shutdown the daemon takes http.json away: doctor then skips HTTP.
	l.stop(t)
	if _, err := os.Stat(datadir.New(l.dataDir).HTTPInfo()); !os.IsNotExist(err) {
		t.Errorf("http.json left behind: %v", err)
	}
	out, _ = runDoctor(t, l.dataDir)
	wantLine(t, out, doctor.NameHTTPToken, "SKIP")
	if l := wantLine(t, out, doctor.NameSocketMode, "SKIP"); !strings.Contains(l, "no daemon running") {
		t.Errorf("socket line: %s", l)
	}
}

func TestDoctorLooseProfile(t *testing.T) {
	needBrowser(t)
	dataDir := t.TempDir()
	profile := filepath.Join(dataDir, "profile")
	if err := os.Mkdir(profile, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(profile, 0o755)
	out, code := runDoctor(t, dataDir)
	if code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, out)
	}
	l := wantLine(t, out, doctor.NameProfileMode, "FAIL")
	if !strings.Contains(l, profile+" is 0755") || !strings.Contains(l, "fix: chmod 700 "+profile) {
		t.Errorf("profile line: %s", l)
	}
	// Only that: the throwaway launch is still fine.
	wantLine(t, out, doctor.NameListeners, "PASS")

	out, _ = runDoctor(t, dataDir, "--json")
	var r doctor.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	c, _ := r.Find(doctor.NameProfileMode)
	if r.OK || c.Status != doctor.Fail || c.Fix != "chmod 700 "+profile {
		t.Errorf("--json: ok=%v %+v", r.OK, c)
	}
}

func TestDoctorPlantedActivePort(t *testing.T) {
	needBrowser(t)
	dataDir := t.TempDir()
	profile := filepath.Join(dataDir, "profile")
	os.Mkdir(profile, 0o700)
	planted := filepath.Join(profile, doctor.ActivePortFile)
	if err := os.WriteFile(planted, []byte("45678\n/devtools/browser/planted-id\n"), 0o664); err != nil {
		t.Fatal(err)
	}
	out, code := runDoctor(t, dataDir)
	if code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, out)
	}
	l := wantLine(t, out, doctor.NameActivePort, "FAIL")
	if !strings.Contains(l, planted+" exists") || !strings.Contains(l, "fix: rm "+planted) {
		t.Errorf("DevToolsActivePort line: %s", l)
	}
	if strings.Contains(out, "planted-id") || strings.Contains(out, "45678") {
		t.Errorf("doctor echoed the file's content:\n%s", out)
	}
}

// TestDoctorListenerOnAllInterfaces points the listener check at a process
// that listens on 0.0.0.0: this test binary, re-executed as a helper.
func TestDoctorListenerOnAllInterfaces(t *testing.T) {
	if os.Getenv("LYRAD_DOCTOR_HELPER") != "" {
		t.Skip("helper")
	}
	if _, err := os.Stat("/proc/self/net/tcp"); err != nil {
		t.Skip("no /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDoctorHelperListen$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LYRAD_DOCTOR_HELPER=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close() // the helper returns, and its TestMain cleans up
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				ready <- a
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("the helper did not listen")
	}
	c := doctor.CheckListeners(cmd.Process.Pid)
	if c.Status != doctor.Fail || !strings.Contains(c.Detail, "listens on 0.0.0.0") || c.Fix == "" {
		t.Fatalf("CheckListeners on a 0.0.0.0 listener: %+v", c)
	}
	t.Logf("%s  %s: %s -- fix: %s", c.Status, c.Name, c.Detail, c.Fix)
}

// TestDoctorHelperListen is the helper: it listens on every interface until
// its stdin closes.
func TestDoctorHelperListen(t *testing.T) {
	if os.Getenv("LYRAD_DOCTOR_HELPER") == "" {
		t.Skip("run by TestDoctorListenerOnAllInterfaces")
	}
	ln, err := net.Listen("tcp4", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	fmt.Println("LISTENING", ln.Addr())
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}
