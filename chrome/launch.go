package chrome

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"
)

const (
	defaultLaunchTimeout = 20 * time.Second
	activePortFile       = "DevToolsActivePort"
	stderrKeep           = 8 << 10 // bytes of Chrome's stderr kept for error messages
	stderrLines          = 8       // lines of it quoted in an error
)

// LaunchOptions configures Launch.
type LaunchOptions struct {
	Path       string
	ProfileDir string // --user-data-dir; created with mode 0700, and chmod 0700 if it exists
	Headless   bool
	UserAgent  string   // when set: --user-agent=...
	Proxy      string   // when set: --proxy-server=...
	ExtraArgs  []string // appended after our flags (Chrome lets a later switch win); URLs and --restore-last-session dropped
	StartURL   string   // default "about:blank"
	Logger     *zap.Logger
	Timeout    time.Duration // waiting for DevToolsActivePort; default 20 s
	// OnMessageDropped, when set, is called with the size Chrome logs each
	// time its DevTools server drops a message to the client that does not
	// fit its 256 MiB send buffer (-1 when the size cannot be read). It is
	// called on the goroutine that reads Chrome's stderr: it must not block.
	OnMessageDropped func(size int64)
	// PIDFile, when set, records the browser (pid, start time, profile)
	// while it runs, and a browser it names that is still running on
	// ProfileDir, left by an earlier lyrad, is killed before the launch.
	// The caller holds the profile's lock.
	PIDFile string
	// DownloadDir, when set, is where the browser's own download and
	// save-file folders point (its profile preferences), so nothing it
	// writes before DevTools' download behaviour applies lands in the
	// user's ~/Downloads. lyrad gives it the store's private incoming folder.
	DownloadDir string
	// TempDir is the browser's private temporary directory (its TMPDIR, TMP
	// and TEMP), where Chrome stages downloads and blobs; default
	// <ProfileDir>/t. It is emptied before the launch and removed once the
	// browser has exited. Chrome also puts its singleton socket there, whose
	// path must fit a Unix socket address: when TempDir is too long for
	// that, a private directory in the system's temporary directory is used
	// instead, and a warning logged.
	TempDir string
	// OnStarted, when set, is called with the browser's pid (its process
	// group's id) as soon as it runs, before Launch waits for its
	// endpoint: launch's watchdog is told whom to kill.
	OnStarted func(pid int)
	// NoParentDeathSignal leaves out the kernel's parent-death signal
	// (Linux), so that a test can show the watchdog alone takes the
	// browser down with lyrad.
	NoParentDeathSignal bool
}

// The screen and window a headless browser reports (--screen-info,
// --window-size): the most common desktop screen.
const (
	headlessScreen = "1920x1080"
	headlessWindow = "1920,1080"
)

// socketTail is what the browser appends to TMPDIR for its singleton
// socket: /<product id>.XXXXXX/SingletonSocket, the longest of Chromium's
// (org.chromium.Chromium, 45 bytes in all), Chrome's and Edge's, with room
// to spare; sunPathMax the room a Unix socket address has.
const (
	socketTail = len("/com.microsoft.Edge.Canary.XXXXXX/SingletonSocket")
	sunPathMax = 107
)

// makeTempDir empties (or creates, 0700) the browser's temporary directory.
func makeTempDir(o LaunchOptions, log *zap.Logger) (string, error) {
	tmp := o.TempDir
	if tmp == "" {
		tmp = filepath.Join(o.ProfileDir, "t")
	}
	if runtime.GOOS != "windows" && len(tmp)+socketTail > sunPathMax {
		// The system's temporary directory, or /tmp when even that ($TMPDIR)
		// is too long.
		base := os.TempDir()
		if len(base)+len("/lyrad-1234567890")+socketTail > sunPathMax {
			base = "/tmp"
		}
		t, err := os.MkdirTemp(base, "lyrad-")
		if err != nil {
			return "", err
		}
		log.Warn("the data dir's path is too long for the browser's socket; its temporary files go to a private directory in the system's instead",
			zap.String("wanted", tmp), zap.String("used", t))
		return t, nil
	}
	if err := os.RemoveAll(tmp); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(tmp), 0o700); err != nil {
		return "", err
	}
	return tmp, os.Mkdir(tmp, 0o700)
}

// Process is a running browser started by Launch.
type Process struct {
	cmd        *exec.Cmd
	port       int
	wsURL      string
	profileDir string
	orphan     int // an earlier lyrad's browser killed before this one started
	log        *zap.Logger

	stderr     *tailBuffer
	stderrDone chan struct{} // closed when every writer of Chrome's stderr has gone
	done       chan struct{} // closed after cmd.Wait returns; cmd.ProcessState is then set
	killOnce   sync.Once
}

// Launch starts the browser on o.ProfileDir and returns once its DevTools
// endpoint is known. ctx bounds only the start-up: cancelling it later does
// not stop the browser (use Close or Kill). On failure the browser's process
// group is killed.
func Launch(ctx context.Context, o LaunchOptions) (*Process, error) {
	if o.Path == "" {
		return nil, errors.New("chrome: no browser executable given")
	}
	if o.ProfileDir == "" {
		return nil, errors.New("chrome: no profile directory given")
	}
	if !o.Headless && !HasDisplay() {
		return nil, errors.New("chrome: a browser window needs a display, but neither DISPLAY nor WAYLAND_DISPLAY is set; run headless or start lyrad inside a desktop session")
	}
	log := o.Logger
	if log == nil {
		log = zap.NewNop()
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = defaultLaunchTimeout
	}

	// The profile holds cookies and logins, and the port file is a pointer to
	// an unauthenticated control port: keep both private to this user.
	if err := os.MkdirAll(o.ProfileDir, 0o700); err != nil {
		return nil, fmt.Errorf("chrome: profile directory: %w", err)
	}
	if err := os.Chmod(o.ProfileDir, 0o700); err != nil {
		return nil, fmt.Errorf("chrome: profile directory: %w", err)
	}
	// The orphan first: alive, it would hold the profile, and could write
	// into it while it is prepared.
	orphan := 0
	if o.PIDFile != "" {
		var err error
		if orphan, err = killOrphan(o.PIDFile, o.ProfileDir, log); err != nil {
			return nil, fmt.Errorf("chrome: %w", err)
		}
	}
	tmp, err := makeTempDir(o, log)
	if err != nil {
		return nil, fmt.Errorf("chrome: the browser's temporary directory: %w", err)
	}
	if err := prepareProfile(o.ProfileDir, o.DownloadDir); err != nil {
		return nil, fmt.Errorf("chrome: %w (remove or repair that file, or use another profile)", err)
	}
	// A file left by an earlier run would point at a dead (or someone else's) port.
	portFile := filepath.Join(o.ProfileDir, activePortFile)
	if err := os.Remove(portFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("chrome: remove stale %s: %w", activePortFile, err)
	}

	cmd := exec.Command(o.Path, launchArgs(o)...)
	env := withTempDir(browserEnv(os.Environ()), tmp)
	if o.DownloadDir != "" && runtime.GOOS == "linux" {
		// Chrome stages a download's first bytes in the user's XDG download
		// folder (~/Downloads) whatever its preferences say; a private
		// user-dirs.dirs points that folder into DownloadDir too.
		if env, err = withXDGDownload(env, tmp, o.DownloadDir); err != nil {
			return nil, fmt.Errorf("chrome: %w", err)
		}
	}
	cmd.Env = env
	ownGroup(cmd, !o.NoParentDeathSignal)
	// Our own pipe rather than an io.Writer: cmd.Wait then returns when the
	// browser exits, not when its last helper closes stderr. Stdout goes to
	// /dev/null.
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("chrome: %w", err)
	}
	cmd.Stderr = w
	p := &Process{
		cmd:        cmd,
		orphan:     orphan,
		profileDir: o.ProfileDir,
		log:        log,
		stderr:     &tailBuffer{max: stderrKeep},
		stderrDone: make(chan struct{}),
		done:       make(chan struct{}),
	}
	var rec *pidRecord
	recorded := make(chan struct{})
	err = startTied(cmd, func() {
		// After the exit, once the pid file is written: never remove a
		// newer browser's record, nor leave this one's behind.
		<-recorded
		if rec != nil {
			forgetBrowser(o.PIDFile, rec)
		}
		// What it staged there (a download's copy, a blob) is nobody's now.
		_ = os.RemoveAll(tmp)
		close(p.done)
	})
	w.Close()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("chrome: start %s: %w", o.Path, err)
	}
	if o.OnStarted != nil {
		o.OnStarted(p.PID())
	}
	var sink io.Writer = p.stderr
	if o.OnMessageDropped != nil {
		sink = io.MultiWriter(p.stderr, &dropWatcher{onDrop: o.OnMessageDropped})
	}
	go func() {
		_, _ = io.Copy(sink, r)
		r.Close()
		close(p.stderrDone)
	}()
	log.Info("browser started", zap.Int("pid", p.PID()), zap.String("path", o.Path), zap.Bool("headless", o.Headless))
	if o.PIDFile != "" {
		rec, err = recordBrowser(o.PIDFile, p.PID(), o.ProfileDir)
	}
	close(recorded)
	if err != nil {
		p.Kill()
		p.waitFor(p.done, 5*time.Second)
		return nil, fmt.Errorf("chrome: cannot record the browser in %s, so it could outlive lyrad unnoticed: %w", o.PIDFile, err)
	}

	if reason := p.waitReady(ctx, portFile, timeout); reason != "" {
		p.Kill()
		p.waitFor(p.done, 5*time.Second)
		// Helpers were killed with the group, so stderr reaches EOF promptly.
		p.waitFor(p.stderrDone, time.Second)
		err := fmt.Errorf("chrome: %s", reason)
		if tail := p.stderr.lastLines(stderrLines); tail != "" {
			err = fmt.Errorf("%w; browser stderr: %s", err, tail)
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%w)", err, ctx.Err())
		}
		log.Warn("browser launch failed", zap.Int("pid", p.PID()), zap.Error(err))
		return nil, err
	}
	log.Info("browser ready", zap.Int("pid", p.PID()))
	return p, nil
}

// startTied starts cmd from a goroutine locked to its OS thread, which then
// waits for the process and calls exited. The thread is the browser's
// parent as far as the kernel's parent-death signal goes (dieWithParent):
// were the goroutine to move, the thread could end while lyrad lives and
// take the browser with it.
func startTied(cmd *exec.Cmd, exited func()) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		exited()
	}()
	return <-started
}

func launchArgs(o LaunchOptions) []string {
	args := []string{
		"--remote-debugging-port=0", // Chrome picks a free port and reports it in DevToolsActivePort
		"--remote-debugging-address=127.0.0.1",
		"--user-data-dir=" + o.ProfileDir,
		// The profile prepareProfile made safe, not whichever one a person
		// last used in the window.
		"--profile-directory=" + profileSubdir,
		"--no-first-run",
		"--no-default-browser-check",
		// navigator.webdriver false, as in the Chrome a person opens. No
		// --enable-automation: its "controlled by automated test software"
		// infobar is in no person's Chrome, and takes its height from the
		// page (the window is lyrad's to show: request_takeover's overlay
		// says who holds it).
		"--disable-blink-features=AutomationControlled",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		// One --disable-features only: Chrome reads the last one. The
		// back/forward cache restores a page with no request the guard could
		// hold; without it every history step is a request. (Preloading is
		// turned off in the profile's preferences: see disablePreloading.)
		"--disable-features=Translate,OptimizationHints,MediaRouter,BackForwardCache",
	}
	if os.Geteuid() == 0 {
		// Chrome refuses to run as root with its sandbox on.
		args = append(args, "--no-sandbox")
	}
	if o.Headless {
		// The new headless mode: the full browser, no window. Its screen
		// and window are 800x600 unless told, a size no desktop has had
		// for twenty years: a common one instead (the window as a
		// maximised one, inside the screen).
		args = append(args, "--headless", "--screen-info={"+headlessScreen+"}", "--window-size="+headlessWindow)
	}
	if o.UserAgent != "" {
		args = append(args, "--user-agent="+o.UserAgent)
	}
	if o.Proxy != "" {
		args = append(args, "--proxy-server="+o.Proxy)
	}
	for _, a := range o.ExtraArgs {
		// A page loaded at startup loads before the guard is attached:
		// no URLs, no session restore.
		if !strings.HasPrefix(a, "-") || strings.TrimLeft(a, "-") == "restore-last-session" {
			continue
		}
		args = append(args, a)
	}
	start := o.StartURL
	if start == "" {
		start = "about:blank"
	}
	return append(args, start)
}

// waitReady polls for DevToolsActivePort and returns "" once the endpoint is
// known, or why it is not. Polling every 10 ms costs nothing over a few
// seconds and works on every OS, unlike inotify.
func (p *Process) waitReady(ctx context.Context, portFile string, timeout time.Duration) string {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		port, path, err := readActivePort(portFile)
		if err == nil {
			// Delete it at once: nobody else needs to find the port, and the
			// file would otherwise outlive this process as a stale pointer.
			if err := os.Remove(portFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
				p.log.Warn("could not remove "+activePortFile, zap.Error(err))
			}
			p.port = port
			p.wsURL = "ws://127.0.0.1:" + strconv.Itoa(port) + path
			return ""
		}
		lastErr = err // not yet written, or half-written: look again
		select {
		case <-tick.C:
		case <-p.done:
			reason := fmt.Sprintf("browser exited before its DevTools endpoint was ready (%s)", p.cmd.ProcessState)
			if p.cmd.ProcessState.Success() {
				// Typical when another browser already has this profile open:
				// the new process hands its arguments over and quits.
				reason += "; is another browser already using profile " + p.profileDir + "?"
			}
			return reason
		case <-deadline.C:
			if errors.Is(lastErr, fs.ErrNotExist) {
				return fmt.Sprintf("browser did not write %s within %s", activePortFile, timeout)
			}
			return fmt.Sprintf("browser wrote an unreadable %s within %s", activePortFile, timeout)
		case <-ctx.Done():
			return "launch cancelled"
		}
	}
}

var errMalformed = errors.New("malformed " + activePortFile)

// readActivePort parses "<port>\n/devtools/browser/<id>".
func readActivePort(name string) (int, string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0, "", err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 {
		return 0, "", errMalformed
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	if err != nil || port <= 0 || port > 65535 {
		return 0, "", errMalformed
	}
	path := strings.TrimSpace(lines[1])
	const prefix = "/devtools/browser/"
	if !strings.HasPrefix(path, prefix) || len(path) == len(prefix) {
		return 0, "", errMalformed
	}
	return port, path, nil
}

func (p *Process) waitFor(ch <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// WebSocketURL is the browser-level CDP endpoint,
// ws://127.0.0.1:PORT/devtools/browser/ID. It grants full control of the
// browser: never log it or put it in an error.
func (p *Process) WebSocketURL() string { return p.wsURL }

// Port is the loopback DevTools port.
func (p *Process) Port() int { return p.port }

// PID is the browser's process id, which is also its process group id.
func (p *Process) PID() int { return p.cmd.Process.Pid }

// KilledOrphan is the pid of a browser an earlier lyrad left running on the
// profile, killed before this one started; 0 when there was none.
func (p *Process) KilledOrphan() int { return p.orphan }

// Done is closed once the browser process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Exited reports whether the browser process has exited.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Gone reports whether the browser process has exited, is a zombie, or is
// on its way out (PF_EXITING, Linux only): a connection that ended because
// the browser quit is not a lost guard. The kernel closes a dying process's
// sockets before it becomes a zombie, so the flag is what tells a crash
// apart from a cut connection without waiting.
func (p *Process) Gone() bool {
	return p.Exited() || procDying(p.PID())
}

// Kill sends SIGKILL to the browser's whole process group at once. It is
// idempotent and does not wait; watch Done for the exit.
//
// The group is signalled even after the browser itself exited, to take down
// helpers that outlived it; the kernel does not reuse a group id while any
// member lives, so the only (remote) risk is a group that fully vanished and
// whose id was reused before this call.
func (p *Process) Kill() {
	p.killOnce.Do(func() {
		if err := killGroup(p.cmd.Process); err != nil {
			p.log.Warn("kill browser", zap.Int("pid", p.PID()), zap.Error(err))
		}
	})
}

// Close asks the browser to quit (SIGTERM to its group, so it can save the
// profile), waits up to grace, then kills the group; it returns once the
// browser has exited. The error is non-nil only when the browser had to be
// killed or could not be signalled.
func (p *Process) Close(grace time.Duration) error {
	var err error
	if !p.Exited() {
		if terr := termGroup(p.cmd.Process); terr != nil {
			err = fmt.Errorf("chrome: SIGTERM browser (pid %d): %w; killed it", p.PID(), terr)
		} else {
			t := time.NewTimer(grace)
			select {
			case <-p.done:
			case <-t.C:
				err = fmt.Errorf("chrome: browser (pid %d) did not exit within %s of SIGTERM; killed it", p.PID(), grace)
			}
			t.Stop()
		}
	}
	// Also sweeps helpers (renderers, GPU, zygote) that outlive the browser.
	p.Kill()
	<-p.done
	if err == nil {
		p.log.Info("browser closed", zap.Int("pid", p.PID()))
	}
	return err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	b       []byte
	trimmed bool // the first line in b may be a cut-off fragment
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = t.b[:copy(t.b, t.b[over:])]
		t.trimmed = true
	}
	return len(p), nil
}

// secretRE matches what would hand a reader the DevTools endpoint: Chrome
// prints "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID".
var secretRE = regexp.MustCompile(`wss?://\S+|/devtools/browser/\S+|(?:127\.0\.0\.1|localhost|\[::1\]):\d+`)

// lastLines returns up to n non-empty trailing lines, joined on one line so
// the error stays readable in structured logs, with endpoints redacted.
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	s := string(t.b)
	if t.trimmed {
		_, s, _ = strings.Cut(s, "\n")
	}
	t.mu.Unlock()
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.Contains(l, "DevTools listening on") {
			continue
		}
		l = secretRE.ReplaceAllString(l, "[redacted]")
		if r := []rune(l); len(r) > 300 {
			l = string(r[:300]) + "…"
		}
		out = append(out, l)
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.Join(out, " | ")
}
