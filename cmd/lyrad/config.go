package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/policy"
	"github.com/lyrad/lyrad/session"
)

// setting is one LYRA_BROWSER_* variable. The older VEGA_BROWSER_* name is
// honoured; the new one wins when both are set.
type setting struct {
	name, def, doc string
}

// settings is every variable lyrad reads, in README order.
var settings = []setting{
	{"DATA_DIR", "~/.lyra-browser", "Data directory: persistent profile, its lock, audit.jsonl, the HTTP token, the daemon socket. vega: $VEGA_DATA_DIR/browser; hermes: $HERMES_HOME/browser (HERMES_HOME default ~/.hermes); else ~/.vega-browser when it exists and ~/.lyra-browser does not."},
	{"CLIENT", "detected", "The agent host: vega or hermes (or generic; also --client). Picks the default data directory and window mode, never permissions. Unset: vega when VEGA_DATA_DIR is set, hermes when HERMES_HOME is, else generic."},
	{"HEADLESS", "auto", "true: no window; false: a window (needs a display). auto: headless for --client hermes, and when neither DISPLAY nor WAYLAND_DISPLAY is set."},
	{"CHANNEL", "", "Which browser: chrome, chrome-beta, chrome-dev, chrome-canary, msedge, msedge-beta, msedge-dev, chromium, or a path to an executable. Unset: Chrome, then Edge, then Chromium."},
	{"PROXY", "", "Route the browser through a proxy, e.g. http://127.0.0.1:3128 or socks5://127.0.0.1:1080."},
	{"OWNER_IDLE_TIMEOUT", "900", "Seconds the driving MCP session may hold the browser without using it; then the window closes and the next session may claim it."},
	{"RECONNECT_GRACE", "60", "Seconds a driver that disconnected keeps its window and tabs for a new session of the same client (initialize's clientInfo.name) through the same front door; others get session_conflict meanwhile. Then the window closes. 0: hand on at once."},
	{"HTTP_SESSION_TIMEOUT", "10", "Seconds an HTTP session may go with no request under way and no stream open before it is closed, as DELETE would (at most 5 once its client cut its last stream); its end is a disconnect. A live client keeps its GET stream open. 0: never."},
	{"NAVIGATION_TIMEOUT", "30", "Seconds navigate waits for the requested load state before answering timeout."},
	{"LOG_LEVEL", "info", "debug, info, warn or error."},
	{"CONSENT_CHANNEL", "auto", "How approval is asked: auto, elicit, legacy or off."},
	{"CONSENT_TIMEOUT", "300", "Seconds a prompt waits for an answer before it counts as a denial."},
	{"APPROVAL_TIMEOUT", "600", "Seconds a question the client could not ask waits for `lyrad approve ID`, and an answer given there for the call to be repeated."},
	{"GRANT_TTL", "600", "Seconds a NAVIGATE/INTERACT grant stays usable. Single-use ones ignore this."},
	{"RELEASE_GRACE", "2", "Seconds before a finished action's unused single-use scope is handed back."},
	{"ENFORCEMENT", "enforce", "enforce, or observe (record would-be refusals, refuse nothing)."},
	{"GUARD_SENDS", "audit", "audit: every fetch/XHR/beacon/WebSocket send that is not a GET is an audit row; judge: also hold the non-GET ones and refuse those to a site the session holds no grant for."},
	{"TRUSTED_ORIGINS", "", "Sites pre-approved for NAVIGATE (and the INTERACT it implies)."},
	{"TRUSTED_SEND_ORIGINS", "", "Sites where SUBMIT and UPLOAD are also pre-approved."},
	{"CAPTURE_DIR", "<data_dir>/captures", "Where screenshot and read_image write their PNGs. Unset and VEGA_DATA_DIR set: $VEGA_DATA_DIR/uploads/browser."},
	{"CAPTURE_KEEP", "200", "How many captures are kept; the oldest of lyrad's own are pruned first."},
	{"UPLOAD_ROOTS", "$HOME", "Directories upload_file may take files from (separated by " + string(os.PathListSeparator) + "). Never lyrad's data directory, and never a path with a dot component (~/.ssh)."},
	{"DOWNLOAD_DIR", "<data_dir>/downloads", "Where the files a call declared (download=true) are kept, 0700. Nothing is ever written outside it."},
	{"DOWNLOAD_KEEP", "200", "How many kept downloads the ledger holds; the oldest of lyrad's own are pruned first. 0 keeps all."},
	{"DOWNLOAD_MAX_BYTES", "209715200", "The largest download kept (200 MiB); a transfer is stopped when it crosses it. 0: no limit."},
	{"AUDIT_FILE_BYTES", "67108864", "audit.jsonl is rotated (audit.jsonl.1, .2, ...) when a row would take it past this many bytes (64 MiB)."},
	{"AUDIT_MAX_BYTES", "1073741824", "The audit trail's cap, all files together (1 GiB): at a rotation the oldest files are dropped, and the new file's first row (kind audit, status dropped) says so."},
	{"AUDIT_TAB_BYTES_PER_DAY", "524288000", "The audit rows one tab's page sets off by itself (guard decisions, sends, refused downloads) are held to this many bytes a day (500 MiB; a burst of a hundredth of it, the rest evenly over the day); rows past it are counted, not written, in kind suppressed rows. 0: no per-tab limit."},
	{"DOWNLOAD_TIMEOUT", "120", "Seconds a started download may take before it is stopped."},
	{"PLAYWRIGHT_EVALUATE", "false", "true: Playwright MCP's browser_evaluate (--surface playwright) runs the agent's function, in lyrad's isolated world, never the page's own; false: it is refused. --playwright-evaluate wins."},
}

// env reads LYRA_BROWSER_<name>, else VEGA_BROWSER_<name>.
func env(name string) (string, bool) {
	if v, ok := os.LookupEnv("LYRA_BROWSER_" + name); ok {
		return v, true
	}
	return os.LookupEnv("VEGA_BROWSER_" + name)
}

// options are the resolved settings: flags over LYRA_BROWSER_* over
// VEGA_BROWSER_* over defaults.
type options struct {
	client     string // vega, hermes or generic: the agent host, for defaults only
	dataDir    string
	headless   *bool
	chrome     string
	proxy      string
	ownerIdle  time.Duration
	navTimeout time.Duration
	// reconnectGrace: a disconnected driver's window kept for its client;
	// httpSessionTimeout: an idle HTTP session closed (0 for either: none).
	reconnectGrace     time.Duration
	httpSessionTimeout time.Duration
	guardSends         string

	captureDir  string
	captureKeep int

	uploadRoots      []string
	downloadDir      string
	downloadKeep     int
	downloadMaxBytes int64
	downloadTimeout  time.Duration

	auditFileBytes, auditMaxBytes int64
	auditTabBytesPerDay           int64 // 0: no per-tab limit

	consentChannel  string
	consentTimeout  time.Duration
	approvalTimeout time.Duration
	grantTTL        time.Duration
	releaseGrace    time.Duration
	enforcement     policy.Mode
	trust           policy.Trust
	warnings        []string        // settings that were read with a complaint
	surf            *surfaceOptions // serve and stdio: the surface and the Playwright MCP flags
	logFile         string
	logLevel        string
	http            bool
	port            int
	flagHeadful     bool
	flagHead        bool
	set             map[string]bool // the flags given on the command line
}

func registerFlags(fs *flag.FlagSet, o *options, serve bool) {
	fs.StringVar(&o.client, "client", "", "the agent host, for its data directory and window mode: vega, hermes or generic (LYRA_BROWSER_CLIENT)")
	fs.StringVar(&o.dataDir, "data-dir", "", "data directory (LYRA_BROWSER_DATA_DIR)")
	fs.BoolVar(&o.flagHead, "headless", false, "run the browser without a window (LYRA_BROWSER_HEADLESS=true)")
	fs.BoolVar(&o.flagHeadful, "no-headless", false, "run the browser with a window even if the environment says otherwise")
	fs.StringVar(&o.chrome, "chrome", "", "browser executable path or channel (LYRA_BROWSER_CHANNEL)")
	fs.StringVar(&o.logFile, "log-file", "", "write logs (JSON) to this file instead of stderr")
	fs.StringVar(&o.logLevel, "log-level", "", "debug, info, warn or error (LYRA_BROWSER_LOG_LEVEL)")
	if serve {
		fs.BoolVar(&o.http, "http", false, "also serve MCP over streamable HTTP on 127.0.0.1")
		fs.IntVar(&o.port, "port", 8765, "HTTP port with --http (0 picks a free one)")
	}
}

// resolve fills what flags left empty from the environment and defaults.
func (o *options) resolve() error {
	if o.flagHead && o.flagHeadful {
		return errors.New("--headless and --no-headless: give one")
	}
	if err := o.resolveClient(); err != nil {
		return err
	}
	switch {
	case o.flagHead:
		t := true
		o.headless = &t
	case o.flagHeadful:
		f := false
		o.headless = &f
	default:
		if v, ok := env("HEADLESS"); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "1", "true", "yes", "on":
				t := true
				o.headless = &t
			case "0", "false", "no", "off":
				f := false
				o.headless = &f
			case "", "auto":
			default:
				return fmt.Errorf("LYRA_BROWSER_HEADLESS=%q: use true, false or auto", v)
			}
		}
	}
	if o.headless == nil && o.client == clientHermes {
		// Hermes reaches its user over chat and gives its servers no
		// display: nobody is at a window.
		t := true
		o.headless = &t
	}
	if o.dataDir == "" {
		if v, ok := env("DATA_DIR"); ok && v != "" {
			o.dataDir = v
		} else {
			def, err := o.clientDataDir()
			if err != nil {
				return fmt.Errorf("no home directory for the default data dir: set LYRA_BROWSER_DATA_DIR or --data-dir (%v)", err)
			}
			o.dataDir = def
		}
	}
	if abs, err := filepath.Abs(o.dataDir); err == nil {
		o.dataDir = abs
	}
	if o.chrome == "" {
		o.chrome, _ = env("CHANNEL")
	}
	o.proxy, _ = env("PROXY")
	var err error
	if o.ownerIdle, err = seconds("OWNER_IDLE_TIMEOUT", 900); err != nil {
		return err
	}
	if o.navTimeout, err = seconds("NAVIGATION_TIMEOUT", 30); err != nil {
		return err
	}
	if o.reconnectGrace, err = secondsOrZero("RECONNECT_GRACE", 60); err != nil {
		return err
	}
	if o.httpSessionTimeout, err = secondsOrZero("HTTP_SESSION_TIMEOUT", 10); err != nil {
		return err
	}
	if o.logLevel == "" {
		o.logLevel, _ = env("LOG_LEVEL")
	}
	if err := o.resolveGuard(); err != nil {
		return err
	}
	if err := o.resolveCaptures(); err != nil {
		return err
	}
	if err := o.resolveDownloads(); err != nil {
		return err
	}
	if o.set["port"] && !o.http {
		return errors.New("--port is the HTTP port: give --http --port N (without --http, MCP is served on the data directory's socket only)")
	}
	if o.port < 0 || o.port > 65535 {
		return fmt.Errorf("--port %d: use 0-65535", o.port)
	}
	return nil
}

// The agent hosts --client knows, with the settings each host expects: each
// has its own data directory, so two hosts never share one profile, and hermes
// runs headless unless told otherwise.
const (
	clientVega    = "vega"
	clientHermes  = "hermes"
	clientGeneric = "generic"
)

// resolveClient reads --client, else LYRA_BROWSER_CLIENT, else detects the
// host from what it puts in the environment: VEGA_DATA_DIR, HERMES_HOME.
func (o *options) resolveClient() error {
	v, from := o.client, "--client"
	if v == "" {
		v, _ = env("CLIENT")
		from = "LYRA_BROWSER_CLIENT"
	}
	switch c := strings.ToLower(strings.TrimSpace(v)); c {
	case clientVega, clientHermes, clientGeneric:
		o.client = c
	case "", "auto":
		switch {
		case strings.TrimSpace(os.Getenv("VEGA_DATA_DIR")) != "":
			o.client = clientVega
		case strings.TrimSpace(os.Getenv("HERMES_HOME")) != "":
			o.client = clientHermes
		default:
			o.client = clientGeneric
		}
	default:
		return fmt.Errorf("%s %q: use vega, hermes or generic", from, v)
	}
	return nil
}

// clientDataDir is the data directory when none is given: vega's is
// $VEGA_DATA_DIR/browser (when VEGA_DATA_DIR is set), hermes'
// $HERMES_HOME/browser (HERMES_HOME defaults to ~/.hermes); otherwise
// ~/.lyra-browser (datadir.Default).
func (o *options) clientDataDir() (string, error) {
	if v := strings.TrimSpace(os.Getenv("VEGA_DATA_DIR")); o.client == clientVega && v != "" {
		return filepath.Join(expandHome(v), "browser"), nil
	}
	if o.client == clientHermes {
		home := strings.TrimSpace(os.Getenv("HERMES_HOME"))
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return "", err
			}
			home = filepath.Join(h, ".hermes")
		}
		return filepath.Join(expandHome(home), "browser"), nil
	}
	return datadir.Default()
}

// expandHome reads a leading ~/ as the home directory, as a shell would
// have.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, rest)
		}
	}
	return p
}

// approveCommand is how the user answers a pending approval on this data
// directory from a terminal: --data-dir only when it is not the default,
// which a plain shell finds by itself.
func (o *options) approveCommand() string {
	if def, err := datadir.Default(); err == nil && def == o.dataDir {
		return "lyrad approve"
	}
	return "lyrad approve --data-dir " + shellWord(o.dataDir)
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '~' || r == ':' || r == '+' || r == ',' ||
			(r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// data is the data directory the options name.
func (o *options) data() datadir.Dir { return datadir.New(o.dataDir) }

// resolveGuard reads the judgement's settings.
func (o *options) resolveGuard() error {
	v, _ := env("CONSENT_CHANNEL")
	switch o.consentChannel = strings.ToLower(strings.TrimSpace(v)); o.consentChannel {
	case "":
		o.consentChannel = "auto"
	case "auto", "elicit", "legacy", "off":
	default:
		return fmt.Errorf("LYRA_BROWSER_CONSENT_CHANNEL=%q: use auto, elicit, legacy or off", v)
	}
	v, _ = env("ENFORCEMENT")
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "enforce":
		o.enforcement = policy.Enforce
	case "observe":
		o.enforcement = policy.Observe
	default:
		return fmt.Errorf("LYRA_BROWSER_ENFORCEMENT=%q: use enforce or observe", v)
	}
	v, _ = env("GUARD_SENDS")
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "audit":
		o.guardSends = session.SendsAudit
	case "judge":
		o.guardSends = session.SendsJudge
	default:
		return fmt.Errorf("LYRA_BROWSER_GUARD_SENDS=%q: use audit or judge", v)
	}
	var err error
	if o.consentTimeout, err = seconds("CONSENT_TIMEOUT", 300); err != nil {
		return err
	}
	if o.approvalTimeout, err = seconds("APPROVAL_TIMEOUT", 600); err != nil {
		return err
	}
	if o.grantTTL, err = seconds("GRANT_TTL", 600); err != nil {
		return err
	}
	if o.releaseGrace, err = seconds("RELEASE_GRACE", 2); err != nil {
		return err
	}
	// A malformed entry is dropped with a warning and the rest still load:
	// it never widens trust.
	for _, l := range []struct {
		name string
		dst  *[]policy.TrustedEntry
	}{{"TRUSTED_ORIGINS", &o.trust.Navigate}, {"TRUSTED_SEND_ORIGINS", &o.trust.Send}} {
		v, _ := env(l.name)
		entries, warnings := policy.ParseTrusted(v)
		*l.dst = entries
		for _, w := range warnings {
			o.warnings = append(o.warnings, "LYRA_BROWSER_"+l.name+": "+w)
		}
	}
	return nil
}

// resolveCaptures reads where captures go and how many are kept. A VEGA
// host attaches only files under its own uploads root, so that is the
// default whenever VEGA_DATA_DIR is set.
func (o *options) resolveCaptures() error {
	if v, ok := env("CAPTURE_DIR"); ok && strings.TrimSpace(v) != "" {
		o.captureDir = strings.TrimSpace(v)
	} else if v := os.Getenv("VEGA_DATA_DIR"); strings.TrimSpace(v) != "" {
		o.captureDir = filepath.Join(strings.TrimSpace(v), "uploads", "browser")
	} else {
		o.captureDir = o.data().Captures()
	}
	if abs, err := filepath.Abs(o.captureDir); err == nil {
		o.captureDir = abs
	}
	o.captureKeep = 200
	if v, ok := env("CAPTURE_KEEP"); ok && strings.TrimSpace(v) != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return fmt.Errorf("LYRA_BROWSER_CAPTURE_KEEP=%q: give a whole number of files, 1 or more", v)
		}
		o.captureKeep = n
	}
	return nil
}

// resolveDownloads reads where declared downloads go, how many are kept,
// and their caps.
func (o *options) resolveDownloads() error {
	if v, ok := env("UPLOAD_ROOTS"); ok && strings.TrimSpace(v) != "" {
		for _, r := range filepath.SplitList(v) {
			if r = strings.TrimSpace(r); r == "" {
				continue
			}
			if !filepath.IsAbs(r) {
				return fmt.Errorf("LYRA_BROWSER_UPLOAD_ROOTS: %q is not an absolute path", r)
			}
			o.uploadRoots = append(o.uploadRoots, filepath.Clean(r))
		}
	}
	if v, ok := env("DOWNLOAD_DIR"); ok && strings.TrimSpace(v) != "" {
		o.downloadDir = strings.TrimSpace(v)
	} else {
		o.downloadDir = o.data().Downloads()
	}
	if abs, err := filepath.Abs(o.downloadDir); err == nil {
		o.downloadDir = abs
	}
	var err error
	if o.downloadKeep, err = count("DOWNLOAD_KEEP", 200, "files"); err != nil {
		return err
	}
	n, err := count("DOWNLOAD_MAX_BYTES", 200<<20, "bytes")
	if err != nil {
		return err
	}
	o.downloadMaxBytes = int64(n)
	if n, err = count("AUDIT_FILE_BYTES", 64<<20, "bytes"); err != nil {
		return err
	}
	o.auditFileBytes = int64(n)
	if n, err = count("AUDIT_MAX_BYTES", 1<<30, "bytes"); err != nil {
		return err
	}
	o.auditMaxBytes = int64(n)
	if o.auditFileBytes < 4<<10 || o.auditMaxBytes < o.auditFileBytes {
		return fmt.Errorf("LYRA_BROWSER_AUDIT_FILE_BYTES=%d, LYRA_BROWSER_AUDIT_MAX_BYTES=%d: give a file size of 4096 bytes or more and a cap at least as large", o.auditFileBytes, o.auditMaxBytes)
	}
	if n, err = count("AUDIT_TAB_BYTES_PER_DAY", 500<<20, "bytes"); err != nil {
		return err
	}
	o.auditTabBytesPerDay = int64(n)
	o.downloadTimeout, err = seconds("DOWNLOAD_TIMEOUT", 120)
	return err
}

// count reads a whole number, 0 or more.
func count(name string, def int, unit string) (int, error) {
	v, ok := env(name)
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("LYRA_BROWSER_%s=%q: give a whole number of %s, 0 or more", name, v, unit)
	}
	return n, nil
}

func seconds(name string, def float64) (time.Duration, error) {
	v, ok := env(name)
	if !ok || strings.TrimSpace(v) == "" {
		return time.Duration(def * float64(time.Second)), nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("LYRA_BROWSER_%s=%q: give a number of seconds greater than 0", name, v)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// secondsOrZero is seconds where 0 is a setting of its own (turned off).
func secondsOrZero(name string, def float64) (time.Duration, error) {
	v, ok := env(name)
	if !ok || strings.TrimSpace(v) == "" {
		return time.Duration(def * float64(time.Second)), nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("LYRA_BROWSER_%s=%q: give a number of seconds, 0 or more (0 turns it off)", name, v)
	}
	return time.Duration(f * float64(time.Second)), nil
}

// browserChoice splits --chrome / LYRA_BROWSER_CHANNEL into a channel name or
// an executable path.
func browserChoice(v string) (channel, executable string) {
	if v == "" {
		return "", ""
	}
	if strings.ContainsRune(v, os.PathSeparator) || strings.ContainsRune(v, '/') {
		return "", v
	}
	return v, ""
}
