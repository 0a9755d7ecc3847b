package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ActivePortFile is the file Chrome writes into its profile naming the
// debugging port and WebSocket path. lyrad deletes it before launch and as
// soon as it has read it.
const ActivePortFile = "DevToolsActivePort"

// private reports whether a mode gives nothing to group or others.
func private(m fs.FileMode) bool { return m.Perm()&0o077 == 0 }

// CheckProfileMode checks that each profile directory that exists is 0700
// (or tighter): it holds cookies and logins. Missing ones are passed over.
func CheckProfileMode(dirs ...string) Check {
	var ok, bad, fixes []string
	for _, d := range dirs {
		st, err := os.Stat(d)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", d, err))
			continue
		}
		if !private(st.Mode()) {
			bad = append(bad, fmt.Sprintf("%s is %04o: other users can read the cookies and logins in it", d, st.Mode().Perm()))
			fixes = append(fixes, "chmod 700 "+d)
			continue
		}
		ok = append(ok, fmt.Sprintf("%s %04o", d, st.Mode().Perm()))
	}
	switch {
	case len(bad) > 0:
		fix := strings.Join(fixes, "; ")
		if fix == "" {
			fix = "make the profile directory readable by this user and mode 0700"
		}
		return fail(NameProfileMode, strings.Join(bad, "; "), fix)
	case len(ok) == 0:
		return skip(NameProfileMode, "no profile directory yet (lyrad creates it 0700 when it opens the browser)")
	}
	return pass(NameProfileMode, strings.Join(ok, ", "))
}

// CheckActivePortAbsent checks that no profile directory holds a
// DevToolsActivePort file: it would tell anyone who can read it where the
// debugging port is.
func CheckActivePortAbsent(dirs ...string) Check {
	var found, fixes, looked []string
	for _, d := range dirs {
		p := filepath.Join(d, ActivePortFile)
		if _, err := os.Lstat(p); err == nil {
			found = append(found, p+" exists: it names a debugging port and its WebSocket path to anyone who can read it")
			fixes = append(fixes, "rm "+p)
		} else if _, err := os.Stat(d); err == nil {
			looked = append(looked, d)
		}
	}
	if len(found) > 0 {
		return fail(NameActivePort, strings.Join(found, "; "),
			strings.Join(fixes, "; ")+" (lyrad deletes it as soon as it has read it: one that stays was left by a browser started on this profile without lyrad)")
	}
	if len(looked) == 0 {
		return skip(NameActivePort, "no profile directory yet")
	}
	return pass(NameActivePort, "not in "+strings.Join(looked, ", "))
}

// CheckFileMode checks that a file, when it exists, is 0600 or tighter.
func CheckFileMode(name, path string) Check {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return skip(name, path+" does not exist yet")
	case err != nil:
		return fail(name, err.Error(), "make "+path+" readable by this user")
	case !private(st.Mode()):
		return fail(name, fmt.Sprintf("%s is %04o: other users can read it", path, st.Mode().Perm()), "chmod 600 "+path)
	}
	return pass(name, fmt.Sprintf("%s %04o", path, st.Mode().Perm()))
}

// CheckSocketMode checks the daemon's socket, when there is one: 0600, so
// that only this user can connect and drive the browser.
func CheckSocketMode(path string, daemonRunning bool) Check {
	return checkSocketMode(NameSocketMode, path, daemonRunning)
}

func checkSocketMode(name, path string, daemonRunning bool) Check {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if daemonRunning {
			return skip(name, "the daemon has no socket at "+path)
		}
		return skip(name, "no daemon running")
	case err != nil:
		return fail(name, err.Error(), "make "+path+" readable by this user")
	case st.Mode().Type() != fs.ModeSocket:
		return fail(name, path+" is not a socket", "stop lyrad, remove "+path+" and start it again")
	case !private(st.Mode()):
		return fail(name, fmt.Sprintf("%s is %04o: other users can connect and drive the browser", path, st.Mode().Perm()),
			"chmod 600 "+path+" (lyrad sets 0600 when it listens: restart it)")
	}
	detail := fmt.Sprintf("%s %04o", path, st.Mode().Perm())
	if !daemonRunning {
		detail += " (no daemon running: a stale socket)"
	}
	return pass(name, detail)
}
