// Package datadir owns lyrad's data directory: where it is, its layout, its
// modes and its locks. Everyone else asks it for paths; none spells a file
// name of its own.
//
//	<dir>/                     0700
//	  lyrad.lock               the daemon's lock (lyrad serve, or lyrad stdio serving in-process); 0600, holds its pid
//	  lyrad.sock               the daemon's MCP socket
//	  http-token               the HTTP bearer token (0600)
//	  http.json                where lyrad serve --http listens (0600; removed on shutdown)
//	  audit.jsonl              the audit trail
//	  browser-ua.json          the user agent and client hints the browser sends with a window
//	  profile.lock             the persistent profile's lock; 0600, holds its holder's pid
//	  profile/                 the persistent profile (0700)
//	  browser.pid              the browser running on profile/ (pid, start time, profile)
//	  captures/                screenshots and element images (unless LYRA_BROWSER_CAPTURE_DIR)
//	  downloads/               the files calls declared (unless LYRA_BROWSER_DOWNLOAD_DIR; see package download)
//	  .tmp-<pid>/              the temporary directory of lyrad <pid>'s browser (removed once that lyrad is gone)
//	<dir>-instances/<pid>[-N]/ a throwaway profile and its browser.pid, while profile.lock is held elsewhere
package datadir

import (
	"errors"
	"os"
	"path/filepath"
)

// Dir is one data directory. The zero value names none, and its paths are
// the bare names, relative to any data directory (for messages).
type Dir struct{ root string }

// New names the data directory at root (cleaned; "" stays "").
func New(root string) Dir {
	if root == "" {
		return Dir{}
	}
	return Dir{root: filepath.Clean(root)}
}

// Default is the data directory used when none is given: ~/.lyra-browser,
// or ~/.vega-browser when that exists and ~/.lyra-browser does not.
func Default() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return DefaultIn(home), nil
}

// DefaultIn is Default for the home directory home.
func DefaultIn(home string) string {
	dir := filepath.Join(home, ".lyra-browser")
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		legacy := filepath.Join(home, ".vega-browser")
		if st, err := os.Stat(legacy); err == nil && st.IsDir() {
			return legacy
		}
	}
	return dir
}

// Root is the directory itself.
func (d Dir) Root() string { return d.root }

// Create makes the directory, and its parents, and sets it 0700: it holds
// cookies, logins and the token that drives the browser.
func (d Dir) Create() error {
	if err := os.MkdirAll(d.root, 0o700); err != nil {
		return err
	}
	_ = os.Chmod(d.root, 0o700)
	return nil
}

func (d Dir) path(name string) string { return filepath.Join(d.root, name) }

// DaemonLock is the lock the daemon holds for as long as it serves this
// directory; it holds the daemon's pid.
func (d Dir) DaemonLock() string { return d.path("lyrad.lock") }

// Socket is the daemon's MCP socket.
func (d Dir) Socket() string { return d.path("lyrad.sock") }

// PlaywrightSocket is the daemon's socket for Playwright MCP's surface.
func (d Dir) PlaywrightSocket() string { return d.path("lyrad-playwright.sock") }

// Token is the HTTP bearer token.
func (d Dir) Token() string { return d.path("http-token") }

// HTTPInfo is where lyrad serve --http records the endpoint it listens on.
func (d Dir) HTTPInfo() string { return d.path("http.json") }

// Audit is the append-only audit trail.
func (d Dir) Audit() string { return d.path("audit.jsonl") }

// BrowserUA is where the user agent the browser sends with a window, and its
// client hints, are remembered for headless runs.
func (d Dir) BrowserUA() string { return d.path("browser-ua.json") }

// ProfileLock is the persistent profile's lock.
func (d Dir) ProfileLock() string { return d.path("profile.lock") }

// Profile is the persistent profile: logins and cookies survive restarts.
func (d Dir) Profile() string { return d.path("profile") }

// BrowserPID records the browser running on the persistent profile.
func (d Dir) BrowserPID() string { return d.path(pidFileName) }

// Captures is the default directory for screenshots and element images.
func (d Dir) Captures() string { return d.path("captures") }

// Downloads is the default directory for the files calls declared.
func (d Dir) Downloads() string { return d.path("downloads") }

// Instances holds the throwaway profiles made while the persistent one is
// held by another process: beside the directory, not in it.
func (d Dir) Instances() string { return d.root + "-instances" }

// InstanceProfiles lists the throwaway profiles that exist now.
func (d Dir) InstanceProfiles() []string {
	dirs, _ := filepath.Glob(filepath.Join(d.Instances(), "*", "profile"))
	return dirs
}

// pidFileName is the browser's pid file, beside the profile it runs on.
const pidFileName = "browser.pid"

// AdminSocket is where the daemon answers its operator commands (lyrad
// takeover, lyrad resume): mode 0600, like the MCP socket.
func (d Dir) AdminSocket() string { return d.path("admin.sock") }
