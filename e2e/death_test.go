package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/internal/testenv"
	"github.com/lyrad/lyrad/launch"
)

// Chrome must never outlive lyrad: when lyrad dies (SIGKILL, a panic) or is
// told to stop (SIGHUP), the browser and every helper go with it, a page
// that posts a refused form every 4 ms gets (next to) nothing out, and the
// next lyrad on the same data directory opens a fresh, guarded browser.

// sink counts the posts reaching it and when each arrived.
type sink struct {
	mu sync.Mutex
	at []time.Time
}

func (s *sink) handler(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.at = append(s.at, time.Now())
	s.mu.Unlock()
	w.WriteHeader(204)
}

// since counts the posts that arrived at or after t.
func (s *sink) since(t time.Time) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, a := range s.at {
		if !a.Before(t) {
			n++
		}
	}
	return n
}

func (s *sink) total() int { return s.since(time.Time{}) }

// postFramesJS defines post(action, fields) for a hostile page: a form
// POST into one of up to 64 hidden iframes. A post never goes into a frame
// whose last post was sent less than a second ago and has not loaded: the
// new navigation would cancel the one the guard holds, and on a loaded
// machine, where the guard takes longer than a round of the frames, the
// page would cancel its own posts before the guard saw them. (A refused
// post's frame fires no load event; its frame is taken again after 1 s.)
// post answers false when every frame is busy.
const postFramesJS = `
const postFrames = [];
const post = (action, fields) => {
  const now = performance.now();
  let fr = postFrames.find(f => !f.sentAt || now - f.sentAt > 1000);
  if (!fr) {
    if (postFrames.length >= 64) return false;
    fr = document.createElement("iframe"); fr.name = "f" + postFrames.length; fr.style.display = "none";
    document.body.appendChild(fr);
    fr.onload = () => { fr.sentAt = 0; };
    postFrames.push(fr);
  }
  fr.sentAt = now;
  const f = document.createElement("form");
  f.method = "post"; f.action = action; f.target = fr.name;
  for (const [k, v] of Object.entries(fields)) {
    const i = document.createElement("input"); i.name = k; i.value = v; f.appendChild(i);
  }
  document.body.appendChild(f); f.submit(); f.remove();
  return true;
};
`

// hostilePoster: every 4 ms a new form posts to action (through
// postFramesJS), so that several posts are held by the guard at any moment
// and a release of them all at once would be seen.
func hostilePoster(action string) string {
	return fmt.Sprintf(`<!doctype html><title>poster</title><body><script>%s
setInterval(() => post(%q, {x: "exfil"}), 4);
</script></body>`, postFramesJS, action)
}

// victim is one lyrad whose end is under test, and a client on it.
type victim struct {
	pid int
	cs  *mcp.ClientSession
}

// startVictim runs bin on dir as `lyrad stdio` (serving in-process) or as
// `lyrad serve`, reached through a `lyrad stdio` relay, with env added to
// its environment.
func startVictim(t *testing.T, bin, dir, mode string, env ...string) *victim {
	t.Helper()
	logf, err := os.OpenFile(filepath.Join(t.TempDir(), "lyrad.log"), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	cmd := exec.Command(bin, mode)
	cmd.Env = append(baseEnv(dir), env...)
	cmd.Stderr = logf
	switch mode {
	case "stdio":
		c := mcp.NewClient(&mcp.Implementation{Name: "e2e-death", Version: "1"}, nil)
		cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, sessionOpts(proto2026))
		if err != nil {
			t.Fatalf("connect over stdio: %v", err)
		}
		t.Cleanup(func() { cs.Close() })
		return &victim{pid: cmd.Process.Pid, cs: cs}
	case "serve":
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go cmd.Wait() // reaps it whichever way it ends
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		waitFor(t, "lyrad serve's socket", 15*time.Second, func() bool {
			c, err := net.Dial("unix", filepath.Join(dir, "lyrad.sock"))
			if err == nil {
				c.Close()
			}
			return err == nil
		})
		return &victim{pid: cmd.Process.Pid, cs: connectStdio(t, dir, proto2026)}
	}
	t.Fatalf("unknown mode %q", mode)
	return nil
}

// profileProcs lists the live processes (browser and helpers) running on
// the data dir's persistent profile.
func profileProcs(dataDir string) []int {
	needle := "--user-data-dir=" + filepath.Join(dataDir, "profile")
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		// Helpers rewrite their command line into one string with
		// spaces; the browser keeps its NUL-separated argv.
		cmdline := strings.ReplaceAll(string(b), "\x00", " ") + " "
		if strings.Contains(cmdline, needle+" ") && testenv.Running(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat reads a process's parent and process group from
// /proc/<pid>/stat (ok false when it is gone).
func procStat(pid int) (ppid, pgrp int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 3 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	return ppid, pgrp, true
}

// watchdogs lists the live watchdogs lyrad (pid parent; 0 for any parent)
// started beside its browsers: its own binary, run as `__watchdog`.
func watchdogs(parent int) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) != 2 || args[1] != launch.WatchdogVerb || !strings.HasPrefix(filepath.Base(args[0]), "lyrad") || !testenv.Running(pid) {
			continue
		}
		if ppid, _, ok := procStat(pid); ok && (parent == 0 || ppid == parent) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// oneGroup checks that every process on the data dir's profile is in the
// browser's process group, which is what the watchdog (and lyrad's own
// kill) signals: a helper outside it would outlive lyrad.
func oneGroup(t *testing.T, dir, tag string) {
	t.Helper()
	leaders := browserPIDs(t, dir)
	if len(leaders) != 1 {
		t.Fatalf("%s: %d browser processes on the profile, want 1", tag, len(leaders))
	}
	for _, pid := range profileProcs(dir) {
		if _, pgrp, ok := procStat(pid); ok && pgrp != leaders[0] {
			t.Errorf("%s: browser process %d is in group %d, not the browser's (%d)", tag, pid, pgrp, leaders[0])
		}
	}
}

// killProfileProcs is the cleanup for a run that left a browser behind:
// never leave one posting on a shared machine.
func killProfileProcs(dataDir string) {
	for _, pid := range profileProcs(dataDir) {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}

var (
	testBinOnce sync.Once
	testBin     string
	testBinErr  error
)

// lyradTestBuild builds lyrad once with its test hooks: the lyrad_testpanic
// tag (it panics in a goroutine on SIGUSR1) and lyrad_testhooks (settings
// only a test may shorten, such as LYRAD_TEST_DIALOG_TTL).
func lyradTestBuild(t *testing.T) string {
	t.Helper()
	testBinOnce.Do(func() {
		testBin = filepath.Join(filepath.Dir(lyradBin), "lyrad-test")
		out, err := exec.Command("go", "build", "-tags", "lyrad_testpanic,lyrad_testhooks", "-o", testBin, "../cmd/lyrad").CombinedOutput()
		if err != nil {
			testBinErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if testBinErr != nil {
		t.Fatalf("building lyrad with its test hooks: %v", testBinErr)
	}
	return testBin
}

// guardedPoster opens the browser on v, shows it is fresh and guarded (a
// hostile page's posts are refused and reach nobody), and returns the
// browser's pid.
func guardedPoster(t *testing.T, v *victim, dir string, a *site, b *site, sk *sink, tag string) {
	t.Helper()
	env := call(t, v.cs, "open_browser", nil)
	wantStatus(t, env, "ok")
	if env["already_open"] != false || env["profile"] != "persistent" {
		t.Fatalf("%s: open_browser did not start a fresh browser on the persistent profile: %v", tag, env)
	}
	path := "/sink-" + tag
	b.handle(path, sk.handler)
	a.page("/poster-"+tag, hostilePoster(b.URL+path))
	before := sk.total()
	wantStatus(t, call(t, v.cs, "navigate", map[string]any{"url": a.URL + "/poster-" + tag}), "ok")
	refused := func() int { return len(refusals(t, dir, path)) }
	for deadline := time.Now().Add(30 * time.Second); refused() < 20; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: the poster's posts were not refused 20 times within 30 s (%d refused, %d reached the sink)", tag, refused(), sk.total()-before)
		}
	}
	if got := sk.total() - before; got != 0 {
		t.Fatalf("%s: %d posts reached the sink while the guard stood", tag, got)
	}
}

// deathRuns: 3 runs on one data dir, alternating stdio and serve; each run
// opens the browser (so runs 2 and 3, and a last open, prove the directory
// usable after a death), starts the poster, ends lyrad with end, and
// measures what got out and how long the browser lived on. env is added
// to lyrad's environment. Every browser has its watchdog beside it, which
// leaves with it.
func deathRuns(t *testing.T, kind string, bin string, env []string, end func(t *testing.T, v *victim, dir string)) {
	needBrowser(t)
	dir := t.TempDir()
	t.Cleanup(func() { killProfileProcs(dir) })
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	sk := &sink{}
	modes := []string{"stdio", "serve", "stdio"}
	var totalAfter int
	for run, mode := range modes {
		tag := fmt.Sprintf("%s-%d-%s", kind, run+1, mode)
		v := startVictim(t, bin, dir, mode, env...)
		guardedPoster(t, v, dir, a, b, sk, tag)
		oneGroup(t, dir, tag)
		wds := watchdogs(v.pid)
		if len(wds) == 0 {
			t.Fatalf("%s: no watchdog beside lyrad's browser", tag)
		}
		procs := profileProcs(dir)
		at := time.Now()
		end(t, v, dir)
		gone := time.Duration(-1)
		for deadline := at.Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if len(profileProcs(dir)) == 0 {
				gone = time.Since(at)
				break
			}
		}
		// What the browser sent before it died has been served: a post
		// that got out is counted by now.
		if gone >= 0 {
			b.drained(t)
		}
		after := sk.since(at)
		totalAfter += after
		left := profileProcs(dir)
		goneMsg := "not within 10 s"
		if gone >= 0 {
			goneMsg = gone.Round(time.Millisecond).String()
		}
		t.Logf("%s: %d browser processes; all gone after %s; %d posts reached the sink after the end; %d processes left", tag, len(procs), goneMsg, after, len(left))
		// 1 s is the target; a loaded 2-core machine gets a margin.
		if gone < 0 || gone > 3*time.Second {
			killProfileProcs(dir)
			t.Fatalf("%s: the browser outlived lyrad (%d processes left after %v)", tag, len(left), time.Since(at).Round(time.Millisecond))
		}
		// The watchdog leaves with the browser it watched.
		waitFor(t, tag+": the watchdog to leave", 10*time.Second, func() bool { return !slices.ContainsFunc(wds, testenv.Running) })
	}
	if totalAfter > 1 {
		t.Errorf("%s: %d posts reached the sink after lyrad ended (at most 1 in 3 runs)", kind, totalAfter)
	}
	// The directory is usable: a fresh, guarded browser.
	v := startVictim(t, lyradBin, dir, "stdio")
	guardedPoster(t, v, dir, a, b, sk, kind+"-after")
	wantStatus(t, call(t, v.cs, "close_browser", nil), "ok")
}

// auditShutdowns counts the audit's rows for an orderly end of the
// browser: closed at shutdown, or handed on when the client's session
// ended first (the front door closes before the browser).
func auditShutdowns(t *testing.T, dir string) int {
	rows := auditRows(t, dir)
	return len(rowsWhere(rows, has{"kind": "browser", "status": "closed", "reason": "shutdown"})) +
		len(rowsWhere(rows, has{"kind": "session", "status": "handoff"}))
}

// TestOrphanKilledBeforeLaunch: a browser an earlier lyrad left running on
// the data dir (one that died where no parent-death signal reaches, or an
// older lyrad), recorded in its pid file and posting unguarded, is killed
// with its helpers by the next open_browser, which then opens a fresh,
// guarded browser on the same profile.
func TestOrphanKilledBeforeLaunch(t *testing.T) {
	browser := needBrowser(t)
	dir := t.TempDir()
	t.Cleanup(func() { killProfileProcs(dir) })
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	orphanSink := &sink{}
	b.handle("/sink-orphan", orphanSink.handler)
	a.page("/poster-orphan", hostilePoster(b.URL+"/sink-orphan"))

	// The earlier lyrad: the profile lock, a browser recorded in the pid
	// file, then the lock let go as a dying process lets it go.
	prof, release, err := datadir.New(dir).AcquireProfile(chrome.EndOrphan)
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := chrome.Launch(t.Context(), chrome.LaunchOptions{Path: browser, ProfileDir: prof.Dir, Headless: true,
		PIDFile: prof.PIDFile, StartURL: a.URL + "/poster-orphan"})
	if err != nil {
		release()
		t.Fatal(err)
	}
	t.Cleanup(orphan.Kill)
	release()
	waitFor(t, "the orphan's unguarded posts", 30*time.Second, func() bool { return orphanSink.total() >= 5 })
	procs := len(profileProcs(dir))

	v := startVictim(t, lyradBin, dir, "stdio")
	start := time.Now()
	guardedPoster(t, v, dir, a, b, &sink{}, "after-orphan")
	select {
	case <-orphan.Done():
	default:
		t.Fatalf("the orphan (pid %d) still runs after open_browser", orphan.PID())
	}
	for _, pid := range profileProcs(dir) {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 2 && f[2] == strconv.Itoa(orphan.PID()) {
			t.Errorf("a helper of the orphan (pid %d) outlived it", pid)
		}
	}
	settled := time.Now()
	time.Sleep(time.Second)
	t.Logf("orphan: %d processes, %d unguarded posts before; killed by the open_browser that returned after %v; %d posts after it", procs, orphanSink.since(time.Time{}), settled.Sub(start).Round(time.Millisecond), orphanSink.since(settled))
	if n := orphanSink.since(settled); n != 0 {
		t.Errorf("%d orphan posts after the new browser opened", n)
	}
	if len(rowsWhere(auditRows(t, dir), has{"kind": "browser", "status": "orphan_killed", "pid": float64(orphan.PID())})) == 0 {
		t.Error("no audit row for the orphan killed")
	}
	wantStatus(t, call(t, v.cs, "close_browser", nil), "ok")
}
