package chrome

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPrepareProfileKeepsTheRest(t *testing.T) {
	dir := t.TempDir()
	if err := prepareProfile(dir, ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "Default", "Preferences")
	os.WriteFile(path, []byte(`{"profile":{"name":"me","exit_type":"Crashed"},"net":{"network_prediction_options":0,"other":true},`+
		`"session":{"restore_on_startup":1,"startup_urls":["http://evil.test/"],"kept":"yes"},"pinned_tabs":[{"url":"http://evil.test/"}]}`), 0o600)
	if err := prepareProfile(dir, ""); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	b, _ := os.ReadFile(path)
	json.Unmarshal(b, &got)
	net := got["net"].(map[string]any)
	session := got["session"].(map[string]any)
	profile := got["profile"].(map[string]any)
	if net["network_prediction_options"] != float64(2) || net["other"] != true || profile["name"] != "me" {
		t.Errorf("preloading not off, or the rest lost: %s", b)
	}
	if session["restore_on_startup"] != float64(5) || len(session["startup_urls"].([]any)) != 0 || session["kept"] != "yes" {
		t.Errorf("startup not forced to the New Tab page: %s", b)
	}
	if len(got["pinned_tabs"].([]any)) != 0 || profile["exit_type"] != "Normal" || profile["exited_cleanly"] != true {
		t.Errorf("pinned tabs or exit type left: %s", b)
	}
	os.WriteFile(path, []byte(`{not json`), 0o600)
	if err := prepareProfile(dir, ""); err == nil {
		t.Error("a corrupt Preferences file was silently accepted")
	}
}

func TestPrepareProfileRemovesTheLastSession(t *testing.T) {
	dir := t.TempDir()
	def := filepath.Join(dir, "Default")
	for _, d := range []string{"Sessions", "Sessions_Encrypted"} {
		os.MkdirAll(filepath.Join(def, d), 0o700)
		os.WriteFile(filepath.Join(def, d, "Session_1"), []byte("x"), 0o600)
	}
	for _, f := range []string{"Current Session", "Last Tabs", "Cookies"} {
		os.WriteFile(filepath.Join(def, f), []byte("x"), 0o600)
	}
	if err := prepareProfile(dir, ""); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Sessions", "Sessions_Encrypted", "Current Session", "Last Tabs"} {
		if _, err := os.Stat(filepath.Join(def, f)); !os.IsNotExist(err) {
			t.Errorf("%s survived: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(def, "Cookies")); err != nil {
		t.Errorf("the profile's other files must stay: %v", err)
	}
}

func TestPreparedPrefsAreNotRewritten(t *testing.T) {
	dir := t.TempDir()
	if err := prepareProfile(dir, ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "Default", "Preferences")
	old := time.Unix(1_000_000_000, 0)
	os.Chtimes(path, old, old)
	if err := prepareProfile(dir, ""); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Error("Preferences rewritten although nothing changed")
	}
}
