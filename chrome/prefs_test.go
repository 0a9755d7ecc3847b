package chrome

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestDisablePreloadingKeepsTheRest(t *testing.T) {
	dir := t.TempDir()
	if err := disablePreloading(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "Default", "Preferences")
	os.WriteFile(path, []byte(`{"profile":{"name":"me"},"net":{"network_prediction_options":0,"other":true}}`), 0o600)
	if err := disablePreloading(dir); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	b, _ := os.ReadFile(path)
	json.Unmarshal(b, &got)
	net := got["net"].(map[string]any)
	if net["network_prediction_options"] != float64(2) || net["other"] != true || got["profile"].(map[string]any)["name"] != "me" {
		t.Errorf("preferences after: %s", b)
	}
	os.WriteFile(path, []byte(`{not json`), 0o600)
	if err := disablePreloading(dir); err == nil {
		t.Error("a corrupt Preferences file was silently accepted")
	}
}
