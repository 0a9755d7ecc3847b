package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestHeadlessUserAgent: headless Chrome announces itself as HeadlessChrome
// in its UA and its client hints; lyrad sends the browser's own headful UA,
// from the very first request of a fresh data dir.
func TestHeadlessUserAgent(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	var mu sync.Mutex
	var uas, hints []string
	s.handle("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		uas = append(uas, r.UserAgent())
		hints = append(hints, r.Header.Get("Sec-CH-UA"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>ua</title>"))
	})
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	for i := 0; i < 2; i++ {
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
		wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	}
	mu.Lock()
	defer mu.Unlock()
	for i := range uas {
		t.Logf("request %d: UA %q, Sec-CH-UA %q", i, uas[i], hints[i])
		if strings.Contains(uas[i], "Headless") || strings.Contains(hints[i], "Headless") {
			t.Errorf("request %d gave headless away: UA %q, Sec-CH-UA %q", i, uas[i], hints[i])
		}
		if !strings.Contains(uas[i], "Chrome/") {
			t.Errorf("request %d: UA %q lost the Chrome token", i, uas[i])
		}
	}
}
