package chrome

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// disablePreloading sets the profile's "Preload pages" preference to off
// (net.network_prediction_options = 2, what a person sets in the
// browser's settings) before the browser starts. Speculation rules make the
// browser prefetch and prerender pages, and activate a prerendered one,
// with no request a DevTools client can hold; with preloading off every
// page is a navigation the guard judges. The rest of the file is kept as it
// is; a file that does not parse is left alone and reported.
func disablePreloading(profileDir string) error {
	dir := filepath.Join(profileDir, "Default")
	path := filepath.Join(dir, "Preferences")
	prefs := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := json.Unmarshal(b, &prefs); err != nil {
			return fmt.Errorf("%s does not parse, so preloading could not be turned off: %w", path, err)
		}
	}
	net, _ := prefs["net"].(map[string]any)
	if net == nil {
		net = map[string]any{}
	}
	if v, ok := net["network_prediction_options"].(float64); ok && v == 2 {
		return nil
	}
	net["network_prediction_options"] = 2
	prefs["net"] = net
	out, err := json.Marshal(prefs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := path + ".lyrad-tmp"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
