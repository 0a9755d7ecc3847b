package e2e

import (
	"bytes"
	"image/png"
	"os"
	"testing"
	"time"
)

// TestTakeoverBannerOnNewTab: a tab the user opens during a takeover (a
// real click, under Xvfb, on a target=_blank link) shows the browser's
// banner too, and loses it with the others when the agent resumes. The
// banner is read off screenshots: pixels that are not the page's own
// colour.
func TestTakeoverBannerOnNewTab(t *testing.T) {
	needBrowser(t)
	display := startXvfb(t)
	a := newSite(t, "127.0.0.1")
	a.page("/", `<!doctype html><title>Home</title><style>html,body{margin:0;height:100%;background:#00f}</style>
<a id=pop href="/pop" target=_blank style="display:block;width:300px;height:120px;background:#00f"></a>`)
	a.page("/pop", `<!doctype html><title>Pop</title><style>html,body{margin:0;height:100%;background:#00f}</style>`)

	ask := &asker{}
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, ask.handle, "LYRA_BROWSER_HEADLESS=auto", "DISPLAY="+display, "LYRA_BROWSER_CONSENT_TIMEOUT=120")
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }
	// notBlue counts the pixels of the active tab that are not the
	// page's blue: the browser's banner, when it is drawn.
	notBlue := func() int {
		t.Helper()
		env := do("screenshot", nil)
		wantStatus(t, env, "ok")
		data, err := os.ReadFile(env["image_path"].(string))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		n, b := 0, img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if r>>8 > 16 || g>>8 > 16 || bl>>8 < 239 {
					n++
				}
			}
		}
		return n
	}
	wantStatus(t, do("navigate", map[string]any{"url": a.URL + "/"}), "ok")
	if n := notBlue(); n != 0 {
		t.Fatalf("the page is not all blue before the takeover (%d pixels): the count would prove nothing", n)
	}
	wantStatus(t, do("request_takeover", map[string]any{"reason": "Open the invoice"}), "takeover_active")
	home := notBlue()
	if home == 0 {
		t.Fatal("no banner on the tab held when the takeover began")
	}

	// The user opens the link in a new tab with the mouse.
	newUserHand(t, display, cs).click(30, 60)
	waitFor(t, "the user's new tab", 20*time.Second, func() bool {
		e := do("get_url", nil)
		return a.count("/pop") > 0 && e["url"] == a.URL+"/pop"
	})
	var pop int
	waitFor(t, "the banner on the new tab", 10*time.Second, func() bool {
		pop = notBlue()
		return pop > 0
	})
	t.Logf("banner pixels: first tab %d, new tab %d", home, pop)

	env := do("resume_after_takeover", nil)
	wantStatus(t, env, "ok")
	if n := notBlue(); n != 0 {
		t.Errorf("%d banner pixels left on the new tab after the resume", n)
	}
	wantStatus(t, do("tabs", map[string]any{"action": "switch", "index": 0}), "ok")
	if n := notBlue(); n != 0 {
		t.Errorf("%d banner pixels left on the first tab after the resume", n)
	}
}
