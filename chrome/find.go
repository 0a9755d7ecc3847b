// Package chrome finds, launches and holds the user's own Chrome-family
// browser and its profile directory. Other packages drive the browser over
// CDP; this package only owns the OS process, its flags and the on-disk
// profile (and the lock that says who is using it).
package chrome

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// ErrNotFound means no usable browser executable was found.
var ErrNotFound = errors.New("no Chrome, Edge or Chromium browser found: install Google Chrome, Microsoft Edge or Chromium (Debian: apt-get install chromium), or set LYRA_BROWSER_CHANNEL / --chrome to a browser executable")

// notFoundError carries a specific message (which path, which channel) while
// still matching errors.Is(err, ErrNotFound).
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

// Found is a located browser executable.
type Found struct {
	Path    string
	Channel string // a channel name such as "chrome", "chrome-beta", "msedge", "chromium", or "explicit"
}

// Channels lists the valid channel names for Find.
var Channels = []string{"chrome", "chrome-beta", "chrome-dev", "chrome-canary", "msedge", "msedge-beta", "msedge-dev", "chromium"}

// defaultOrder is tried when neither a path nor a channel is given: stable
// Chrome, Edge, Chromium, then pre-release builds so that a machine with only
// Chrome Beta still works.
var defaultOrder = []string{"chrome", "msedge", "chromium", "chrome-beta", "chrome-dev", "chrome-canary", "msedge-beta", "msedge-dev"}

// Find locates a browser. explicit (a path, or a bare name looked up in PATH)
// wins, then channel, else defaultOrder.
func Find(channel, explicit string) (Found, error) {
	return find(channel, explicit, candidates(runtime.GOOS, os.Getenv))
}

func find(channel, explicit string, table map[string][]string) (Found, error) {
	if explicit != "" {
		p, err := checkExplicit(explicit)
		if err != nil {
			return Found{}, err
		}
		return Found{Path: p, Channel: "explicit"}, nil
	}
	order := defaultOrder
	if channel = strings.ToLower(strings.TrimSpace(channel)); channel != "" {
		if _, ok := table[channel]; !ok {
			return Found{}, fmt.Errorf("unknown browser channel %q; valid channels: %s", channel, strings.Join(Channels, ", "))
		}
		order = []string{channel}
	}
	for _, ch := range order {
		for _, c := range table[ch] {
			if p, ok := lookup(c); ok {
				return Found{Path: p, Channel: ch}, nil
			}
		}
	}
	if channel != "" {
		return Found{}, &notFoundError{fmt.Sprintf("browser channel %q is not installed (looked for %s); %v",
			channel, strings.Join(table[channel], ", "), ErrNotFound)}
	}
	return Found{}, ErrNotFound
}

func checkExplicit(p string) (string, error) {
	if !strings.ContainsRune(p, '/') && !strings.ContainsRune(p, filepath.Separator) {
		// A bare name such as "chromium": resolve it the way a shell would.
		if lp, err := exec.LookPath(p); err == nil {
			return lp, nil
		}
		return "", &notFoundError{fmt.Sprintf("browser executable %q not found in PATH", p)}
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &notFoundError{fmt.Sprintf("browser executable %s does not exist", p)}
	case err != nil:
		return "", &notFoundError{fmt.Sprintf("browser executable %s: %v", p, err)}
	case !executable(fi):
		return "", &notFoundError{fmt.Sprintf("browser executable %s is not an executable file", p)}
	}
	return p, nil
}

func lookup(c string) (string, bool) {
	if filepath.IsAbs(c) {
		fi, err := os.Stat(c)
		return c, err == nil && executable(fi)
	}
	p, err := exec.LookPath(c)
	return p, err == nil
}

func executable(fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0
}

// candidates returns, per channel, the names (looked up in PATH) and absolute
// paths where each browser is installed on goos.
func candidates(goos string, getenv func(string) string) map[string][]string {
	switch goos {
	case "darwin":
		app := func(name string) []string {
			rel := filepath.Join(name+".app", "Contents", "MacOS", name)
			out := []string{filepath.Join("/Applications", rel)}
			if h := getenv("HOME"); h != "" {
				out = append(out, filepath.Join(h, "Applications", rel))
			}
			return out
		}
		return map[string][]string{
			"chrome":        app("Google Chrome"),
			"chrome-beta":   app("Google Chrome Beta"),
			"chrome-dev":    app("Google Chrome Dev"),
			"chrome-canary": app("Google Chrome Canary"),
			"msedge":        app("Microsoft Edge"),
			"msedge-beta":   app("Microsoft Edge Beta"),
			"msedge-dev":    app("Microsoft Edge Dev"),
			"chromium":      app("Chromium"),
		}
	case "windows":
		var roots []string
		for _, v := range []string{"ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"} {
			if r := getenv(v); r != "" {
				roots = append(roots, r)
			}
		}
		in := func(rel ...string) []string {
			var out []string
			for _, r := range roots {
				out = append(out, filepath.Join(append([]string{r}, rel...)...))
			}
			return out
		}
		return map[string][]string{
			"chrome":        in("Google", "Chrome", "Application", "chrome.exe"),
			"chrome-beta":   in("Google", "Chrome Beta", "Application", "chrome.exe"),
			"chrome-dev":    in("Google", "Chrome Dev", "Application", "chrome.exe"),
			"chrome-canary": in("Google", "Chrome SxS", "Application", "chrome.exe"),
			"msedge":        in("Microsoft", "Edge", "Application", "msedge.exe"),
			"msedge-beta":   in("Microsoft", "Edge Beta", "Application", "msedge.exe"),
			"msedge-dev":    in("Microsoft", "Edge Dev", "Application", "msedge.exe"),
			"chromium":      in("Chromium", "Application", "chrome.exe"),
		}
	default: // Linux and other Unixes
		return map[string][]string{
			"chrome":        {"google-chrome-stable", "google-chrome", "/opt/google/chrome/chrome"},
			"chrome-beta":   {"google-chrome-beta", "/opt/google/chrome-beta/chrome"},
			"chrome-dev":    {"google-chrome-unstable", "/opt/google/chrome-unstable/chrome"},
			"chrome-canary": {"google-chrome-canary", "/opt/google/chrome-canary/chrome"},
			"msedge":        {"microsoft-edge-stable", "microsoft-edge", "/opt/microsoft/msedge/msedge"},
			"msedge-beta":   {"microsoft-edge-beta", "/opt/microsoft/msedge-beta/msedge"},
			"msedge-dev":    {"microsoft-edge-dev", "/opt/microsoft/msedge-dev/msedge"},
			"chromium":      {"chromium", "chromium-browser", "/usr/bin/chromium", "/snap/bin/chromium"},
		}
	}
}

// Version runs `<path> --version` and returns its first line of output,
// e.g. "Chromium 156.0.8078.73 built on Debian GNU/Linux 12 (bookworm)".
func Version(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	// Wrapper scripts (Debian's /usr/bin/chromium) may leave children holding
	// our pipes; don't let that stretch the 5 s bound.
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			return "", fmt.Errorf("%s --version: %w: %s", path, err, firstLine(string(ee.Stderr)))
		}
		return "", fmt.Errorf("%s --version: %w", path, err)
	}
	v := firstLine(string(out))
	if v == "" {
		return "", fmt.Errorf("%s --version printed nothing", path)
	}
	return v, nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// HasDisplay reports whether a headful browser can show a window: on Linux
// and other X11/Wayland systems that needs DISPLAY or WAYLAND_DISPLAY; macOS
// and Windows always have a desktop for a logged-in user.
func HasDisplay() bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return true
	}
	return os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
}

// HeadfulUserAgent turns a headless browser's user agent into the one the
// same browser sends with a window: only the "HeadlessChrome/" product token
// becomes "Chrome/", so sites don't single out the headless session.
func HeadfulUserAgent(ua string) string {
	return strings.Replace(ua, "HeadlessChrome/", "Chrome/", 1)
}

// versionRE is a four-part Chrome version.
var versionRE = regexp.MustCompile(`\b(\d+)\.\d+\.\d+\.\d+\b`)

// LinuxUserAgent is the user agent Chromium or Google Chrome sends with a
// window on Linux, learned without starting the browser: `<binary>
// --version` prints the version and exits before any browser starts
// (about 90 ms through Debian's wrapper script). Since the user-agent
// reduction the string is the version's major and a fixed platform token
// ("X11; Linux x86_64" on every Linux machine). It returns "" elsewhere,
// for other browsers (Edge adds a token of its own) and when the binary
// does not say; the caller then asks the running browser. brand is the
// one the binary names itself by ("Chromium" or "Google Chrome").
func LinuxUserAgent(ctx context.Context, path string) (userAgent, brand string) {
	if runtime.GOOS != "linux" {
		return "", ""
	}
	// A binary that does not know --version could start a browser instead:
	// it runs in a group of its own, with the browser's environment, and
	// the whole group is killed when it is slow to answer.
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = browserEnv(os.Environ())
	ownGroup(cmd, true)
	cmd.Cancel = func() error { return killGroup(cmd.Process) }
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil || len(out) > 4096 {
		return "", ""
	}
	line := strings.TrimSpace(string(out))
	switch {
	case strings.HasPrefix(line, "Chromium "):
		brand = "Chromium"
	case strings.HasPrefix(line, "Google Chrome "):
		brand = "Google Chrome"
	default:
		return "", ""
	}
	m := versionRE.FindStringSubmatch(line)
	if m == nil {
		return "", ""
	}
	return "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/" + m[1] + ".0.0.0 Safari/537.36", brand
}
