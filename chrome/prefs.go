package chrome

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// profileSubdir is the profile inside --user-data-dir that the browser
// opens: launchArgs pins it with --profile-directory, so these preferences
// are the ones in force.
const profileSubdir = "Default"

// sessionFiles are what the browser restores a last session from: the
// directories of current builds (Sessions_Encrypted since 2025) and the
// files of older ones.
var sessionFiles = []string{"Sessions", "Sessions_Encrypted", "Current Session", "Current Tabs", "Last Session", "Last Tabs"}

// prepareProfile makes the profile start with nothing but the page lyrad
// asks for, before the browser starts, and keeps it from loading pages by
// itself:
//
//   - "Preload pages" off (net.network_prediction_options = 2, what a person
//     sets in the browser's settings). Speculation rules make the browser
//     prefetch and prerender pages, and activate a prerendered one, with no
//     request a DevTools client can hold; with preloading off every page is
//     a navigation the guard judges.
//
//   - "On startup" set to "Open the New Tab page" (session.restore_on_startup
//     = 5) with no startup pages, and the last session's files removed. A
//     restored tab or a startup page loads before lyrad has attached, so no
//     guard would judge it (a person can choose "Continue where you left
//     off" in the window).
//
//   - The last exit recorded as clean: lyrad ends the browser with SIGKILL
//     when it dies itself, and the "Restore pages?" bubble has nothing to
//     restore anyway.
//
//   - With downloadDir, the browser's own download and save-file folders
//     (download.default_directory, savefile.default_directory) pointed at
//     it, with no "ask where to save": Chrome writes its temporary copy of
//     a download into the default folder before DevTools' download
//     behaviour takes over, which would otherwise be the user's ~/Downloads.
//
// The rest of the file is kept as it is; a file that does not parse is left
// alone and reported.
func prepareProfile(profileDir, downloadDir string) error {
	dir := filepath.Join(profileDir, profileSubdir)
	set := forced
	if downloadDir != "" {
		set = append(append([]forcedPref(nil), forced...),
			forcedPref{[]string{"download", "default_directory"}, downloadDir},
			forcedPref{[]string{"download", "prompt_for_download"}, false},
			forcedPref{[]string{"download", "directory_upgrade"}, true},
			forcedPref{[]string{"savefile", "default_directory"}, downloadDir})
	}
	if err := forcePrefs(filepath.Join(dir, "Preferences"), set); err != nil {
		return err
	}
	for _, name := range sessionFiles {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("remove the last session (%s): %w", name, err)
		}
	}
	return nil
}

// forced are the preferences prepareProfile sets, by path.
type forcedPref struct {
	path  []string
	value any
}

var forced = []forcedPref{
	{[]string{"net", "network_prediction_options"}, float64(2)},
	{[]string{"session", "restore_on_startup"}, float64(5)},
	{[]string{"session", "startup_urls"}, []any{}},
	{[]string{"pinned_tabs"}, []any{}},
	{[]string{"profile", "exit_type"}, "Normal"},
	{[]string{"profile", "exited_cleanly"}, true},
}

func forcePrefs(path string, set []forcedPref) error {
	prefs := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(b, &prefs); err != nil {
			return fmt.Errorf("%s does not parse, so preloading and session restore could not be turned off: %w", path, err)
		}
	}
	changed := false
	for _, f := range set {
		if setPref(prefs, f.path, f.value) {
			changed = true
		}
	}
	if !changed {
		return nil
	}
	out, err := json.Marshal(prefs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".lyrad-tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// setPref sets prefs[path...] = v, creating (or replacing non-object)
// parents, and reports whether anything changed.
func setPref(prefs map[string]any, path []string, v any) bool {
	m := prefs
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	last := path[len(path)-1]
	old, _ := json.Marshal(m[last])
	now, _ := json.Marshal(v)
	if _, ok := m[last]; ok && string(old) == string(now) {
		return false
	}
	m[last] = v
	return true
}
