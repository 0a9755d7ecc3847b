// Package doctor checks, from the outside, what lyrad claims about the
// browser's debugging port and about its own front doors: the checks a
// scanner on the same machine could make.
//
// The debugging port of a running daemon's browser is never touched: doctor
// launches a throwaway browser through the same path lyrad uses
// (chrome.Find, chrome.Launch, a fresh profile) and finds its port the way
// anyone could, in /proc, not by asking the launcher. The daemon is looked at
// only through its files (modes, the socket, http.json) and its HTTP front
// door, with requests that create no MCP session.
//
// Nothing doctor prints names the debugging port's number or its WebSocket
// path: the rule lyrad keeps everywhere else holds here too.
package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/internal/proc"
)

// Status of one check.
const (
	Pass = "PASS"
	Fail = "FAIL"
	Skip = "SKIP"
)

// Check names, as printed.
const (
	NameBrowserFound   = "browser found"
	NameBrowserStarted = "throwaway browser started"
	NameListeners      = "debugging port on 127.0.0.1 only"
	NameOrigin         = "WebSocket with an Origin header refused"
	NameForeignHost    = "foreign Host refused"
	NameActivePort     = "DevToolsActivePort absent"
	NameProfileMode    = "profile is 0700"
	NameSocketMode     = "socket is 0600"
	// NamePWSocketMode: the socket of Playwright MCP's surface drives the
	// same browser, so it is held to the same mode.
	NamePWSocketMode = "Playwright surface's socket 0600"
	NameDaemonPorts  = "daemon listens on 127.0.0.1 only"
	NameHTTPToken    = "HTTP front door needs the token"
	NameHTTPOrigin   = "HTTP front door refuses a foreign Origin"
	NameHTTPHost     = "HTTP front door refuses a foreign Host"
	NameAuditMode    = "audit trail is 0600"
)

// Check is the outcome of one check. Fix says what to do when it fails.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

func pass(name, detail string) Check { return Check{Name: name, Status: Pass, Detail: detail} }
func skip(name, detail string) Check { return Check{Name: name, Status: Skip, Detail: detail} }
func fail(name, detail, fix string) Check {
	return Check{Name: name, Status: Fail, Detail: detail, Fix: fix}
}

// Options say which browser and which data directory to check.
type Options struct {
	DataDir    string
	Channel    string // as LYRA_BROWSER_CHANNEL: chrome, msedge, chromium, ...
	Executable string // an explicit browser path; wins over Channel
	Headless   *bool  // nil: headless when there is no display, as lyrad
	Proxy      string // passed to the browser as lyrad does
	// LaunchTimeout bounds the throwaway browser's start; default 30 s.
	LaunchTimeout time.Duration
}

// BrowserInfo describes the browser that was checked.
type BrowserInfo struct {
	Path     string `json:"path,omitempty"`
	Channel  string `json:"channel,omitempty"`
	Version  string `json:"version,omitempty"`
	Headless bool   `json:"headless"`
}

// HTTPInfo is what an HTTP MCP client needs to register with the daemon.
type HTTPInfo struct {
	Serving bool   `json:"serving"`
	URL     string `json:"url,omitempty"`
	Token   string `json:"token,omitempty"`
}

// Report is the whole result. OK is false when any check failed.
type Report struct {
	DataDir string      `json:"data_dir"`
	Checks  []Check     `json:"checks"`
	OK      bool        `json:"ok"`
	Browser BrowserInfo `json:"browser"`
	HTTP    HTTPInfo    `json:"http"`
}

func (r *Report) add(c ...Check) { r.Checks = append(r.Checks, c...) }

// Find returns the check of that name, if it ran.
func (r *Report) Find(name string) (Check, bool) {
	for _, c := range r.Checks {
		if c.Name == name {
			return c, true
		}
	}
	return Check{}, false
}

// Run makes every check and returns the report; it never fails as a whole.
func Run(ctx context.Context, o Options) Report {
	r := Report{DataDir: o.DataDir}
	headless := !chrome.HasDisplay()
	if o.Headless != nil {
		headless = *o.Headless
	}
	r.Browser.Headless = headless

	data := datadir.New(o.DataDir)
	profiles := append([]string{data.Profile()}, data.InstanceProfiles()...)

	// The browser: everything a scanner can do against a guarded launch.
	r.add(checkBrowser(ctx, o, headless, &r.Browser, profiles)...)

	// The daemon's files and front doors.
	daemonPID := daemonRunning(data)
	r.add(CheckSocketMode(data.Socket(), daemonPID != 0))
	r.add(checkSocketMode(NamePWSocketMode, data.PlaywrightSocket(), daemonPID != 0))
	r.add(CheckDaemonListeners(daemonPID))
	r.add(checkHTTP(ctx, data, daemonPID != 0, &r.HTTP)...)
	r.add(CheckFileMode(NameAuditMode, data.Audit()))

	r.OK = true
	for _, c := range r.Checks {
		if c.Status == Fail {
			r.OK = false
		}
	}
	return r
}

// notFoundFix is the fix for a browser that was not found: what was asked
// for is missing, which need not mean that no browser is installed.
func notFoundFix(o Options) string {
	other := ""
	if f, err := chrome.Find("", ""); err == nil {
		other = " (" + f.Path + " is installed: leave --chrome and LYRA_BROWSER_CHANNEL unset to use it)"
	}
	switch {
	case o.Executable != "":
		return "give --chrome (or LYRA_BROWSER_CHANNEL) the path of an installed browser: " + o.Executable + " is not one" + other
	case o.Channel != "":
		return "install the " + o.Channel + " channel, or name another in --chrome (LYRA_BROWSER_CHANNEL)" + other
	}
	return "install Chromium (apt-get install chromium), Google Chrome or Microsoft Edge, or point --chrome (LYRA_BROWSER_CHANNEL) at one"
}

// checkBrowser finds the browser, launches a throwaway one the way lyrad
// does, and checks its debugging port from the outside. The profile checks
// ride along because the throwaway profile exists only while it runs.
func checkBrowser(ctx context.Context, o Options, headless bool, info *BrowserInfo, profiles []string) []Check {
	const noBrowser = "no browser to check"
	skipPort := func(why string) []Check {
		return []Check{skip(NameListeners, why), skip(NameOrigin, why), skip(NameForeignHost, why)}
	}
	found, err := chrome.Find(o.Channel, o.Executable)
	if err != nil {
		out := []Check{fail(NameBrowserFound, err.Error(), notFoundFix(o))}
		out = append(out, skip(NameBrowserStarted, noBrowser))
		out = append(out, skipPort(noBrowser)...)
		return append(out, CheckActivePortAbsent(profiles...), CheckProfileMode(profiles...))
	}
	info.Path, info.Channel = found.Path, found.Channel
	ver, err := chrome.Version(ctx, found.Path)
	if err != nil {
		out := []Check{fail(NameBrowserFound, err.Error(), "reinstall the browser at "+found.Path+", or point --chrome (LYRA_BROWSER_CHANNEL) at another")}
		out = append(out, skip(NameBrowserStarted, "the browser does not run"))
		out = append(out, skipPort("the browser does not run")...)
		return append(out, CheckActivePortAbsent(profiles...), CheckProfileMode(profiles...))
	}
	info.Version = ver
	out := []Check{pass(NameBrowserFound, fmt.Sprintf("%s (%s)", found.Path, ver))}

	// A fresh profile under the temp dir, created loose (0755) on purpose:
	// lyrad's launch must tighten it to 0700 before Chrome starts.
	tmp, err := os.MkdirTemp("", "lyrad-doctor-")
	if err != nil {
		out = append(out, fail(NameBrowserStarted, "no temporary profile: "+err.Error(), "make "+os.TempDir()+" writable, or set TMPDIR"))
		out = append(out, skipPort("the browser did not start")...)
		return append(out, CheckActivePortAbsent(profiles...), CheckProfileMode(profiles...))
	}
	defer os.RemoveAll(tmp)
	throwaway := filepath.Join(tmp, "profile")
	loosened := os.Mkdir(throwaway, 0o755) == nil && os.Chmod(throwaway, 0o755) == nil

	timeout := o.LaunchTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	proc, err := chrome.Launch(ctx, chrome.LaunchOptions{
		Path: found.Path, ProfileDir: throwaway, Headless: headless, Proxy: o.Proxy, Timeout: timeout,
	})
	if err != nil {
		fix := "check that the browser runs on this machine"
		if !headless {
			fix = "run with --headless, or inside a desktop session"
		}
		out = append(out, fail(NameBrowserStarted, err.Error(), fix))
		out = append(out, skipPort("the browser did not start")...)
		return append(out, CheckActivePortAbsent(profiles...), CheckProfileMode(profiles...))
	}
	defer proc.Close(3 * time.Second)
	mode := "headless"
	if !headless {
		mode = "with a window"
	}
	out = append(out, pass(NameBrowserStarted, fmt.Sprintf("%s, on a fresh profile under %s, through lyrad's own launch path", mode, os.TempDir())))

	lc, ls := checkListeners(proc.PID())
	port := 0
	if lc.Status != Skip {
		port = findDevToolsPort(ctx, ls)
		switch {
		case port == 0:
			lc = fail(NameListeners, fmt.Sprintf("none of the browser's %d listening socket(s) answers as DevTools, so the debugging port could not be found from outside", len(ls)),
				"report this: the browser lyrad launches should listen on its debugging port")
		case port != proc.Port():
			lc = fail(NameListeners, "the port that answers as DevTools is not the one lyrad read from DevToolsActivePort: the browser listens on a port lyrad does not know about",
				"report this: lyrad's launch and the browser disagree about the debugging port")
		case lc.Status == Pass:
			lc.Detail += "; the one answering as DevTools is the debugging port lyrad read from DevToolsActivePort"
		}
	}
	out = append(out, lc)
	if port == 0 {
		why := "the debugging port was not found from outside"
		out = append(out, skip(NameOrigin, why), skip(NameForeignHost, why))
	} else {
		out = append(out, CheckOriginRefused(port), CheckForeignHostRefused(port))
	}

	ap := CheckActivePortAbsent(append([]string{throwaway}, profiles...)...)
	pm := CheckProfileMode(append([]string{throwaway}, profiles...)...)
	if pm.Status == Pass && loosened {
		pm.Detail += "; lyrad's launch tightened the throwaway profile from 0755"
	}
	return append(out, ap, pm)
}

// CheckDaemonListeners looks at a running daemon the way a scanner would:
// every TCP socket it and its children (its browser included) listen on must
// be on 127.0.0.1. Only /proc is read; nothing is sent to the daemon's
// browser.
func CheckDaemonListeners(pid int) Check {
	if pid == 0 {
		return skip(NameDaemonPorts, "no daemon running")
	}
	c := CheckListeners(pid)
	c.Name = NameDaemonPorts
	if c.Status == Pass {
		c.Detail = fmt.Sprintf("pid %d and its browser: %s", pid, c.Detail)
	}
	return c
}

// daemonRunning returns the pid of the live process that holds the data
// directory's lock (lyrad serve, or lyrad stdio serving in-process), or 0.
// The lock file is read, never locked (datadir.Dir.DaemonHolder).
func daemonRunning(data datadir.Dir) int {
	pid := data.DaemonHolder()
	if pid == 0 || !proc.Alive(pid) {
		return 0
	}
	return pid
}

// WriteText prints the report for a person: one line per check, then what
// an HTTP client needs.
func (r Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "lyrad doctor: data dir %s\n", r.DataDir)
	for _, c := range r.Checks {
		line := fmt.Sprintf("%s  %s", c.Status, c.Name)
		if c.Detail != "" {
			line += ": " + c.Detail
		}
		if c.Status == Fail && c.Fix != "" {
			line += " -- fix: " + c.Fix
		}
		fmt.Fprintln(w, line)
	}
	switch {
	case r.HTTP.Token == "":
		fmt.Fprintln(w, "token: none yet (lyrad serve --http creates <data_dir>/"+tokenFile+")")
	default:
		fmt.Fprintln(w, "token: "+r.HTTP.Token)
	}
	if r.HTTP.Serving {
		fmt.Fprintln(w, "endpoint: "+r.HTTP.URL+"  (send Authorization: Bearer <token>)")
	} else {
		fmt.Fprintln(w, "endpoint: not serving HTTP (start lyrad serve --http)")
	}
	if r.OK {
		fmt.Fprintln(w, "ok: no check failed")
	} else {
		fmt.Fprintln(w, "not ok: fix the FAIL lines above")
	}
}

// WriteJSON prints the report as one JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
