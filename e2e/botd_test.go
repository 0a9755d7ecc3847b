package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

const botdPkg = "@fingerprintjs/botd@2.0.0"

// botdBundle returns BotD's browser bundle (its ES module), an open-source
// bot detector. CI installs it once and names the directory in
// LYRAD_BOTD_DIR (.ci/run); elsewhere it is installed with npm into a
// temporary directory. In CI a missing npm or a failed install fails the
// test; elsewhere it skips.
func botdBundle(t *testing.T) []byte {
	t.Helper()
	dir := os.Getenv("LYRAD_BOTD_DIR")
	if dir == "" {
		npm := testenv.Tool(t, "npm", "to install BotD (Debian: apt-get install npm)")
		dir = t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", botdPkg).CombinedOutput()
		if err != nil {
			err = fmt.Errorf("%v\n%s", err, out)
		}
		testenv.Need(t, "npm install "+botdPkg+" (needs the npm registry)", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "@fingerprintjs", "botd", "dist", "botd.esm.js"))
	testenv.Need(t, "BotD in LYRAD_BOTD_DIR (npm install --prefix \"$LYRAD_BOTD_DIR\" "+botdPkg+")", err)
	return b
}

// botdPage runs BotD's detect() and reports it with what a page learns of
// its window: focus, screen and window sizes (an infobar takes its height
// from the page: outer minus inner grows). No monitoring request leaves.
const botdPage = `<!doctype html><title>botd</title><p>botd</p><script type="module">
import { load } from '/botd.esm.js';
const r = {
	has_focus: document.hasFocus(),
	webdriver: navigator.webdriver === true,
	screen: [screen.width, screen.height],
	outer: [outerWidth, outerHeight],
	inner: [innerWidth, innerHeight],
	visibility: document.visibilityState,
};
try {
	const d = await load({ monitoring: false });
	const res = d.detect();
	r.bot = res.bot;
	r.bot_kind = res.botKind || '';
	r.detections = Object.entries(d.getDetections()).filter(([, v]) => v.bot).map(([k, v]) => k + ':' + v.botKind);
} catch (e) {
	r.error = String(e);
}
r.has_focus_after = document.hasFocus();
fetch('/botd-report' + location.search, { method: 'POST', body: JSON.stringify(r) });
</script>`

type botdReport struct {
	HasFocus      bool     `json:"has_focus"`
	HasFocusAfter bool     `json:"has_focus_after"`
	Webdriver     bool     `json:"webdriver"`
	Screen        [2]int   `json:"screen"`
	Outer         [2]int   `json:"outer"`
	Inner         [2]int   `json:"inner"`
	Visibility    string   `json:"visibility"`
	Bot           bool     `json:"bot"`
	BotKind       string   `json:"bot_kind"`
	Detections    []string `json:"detections"`
	Error         string   `json:"error"`
}

func (r botdReport) String() string {
	return fmt.Sprintf("bot=%v kind=%q detections=%v hasFocus=%v/%v webdriver=%v screen=%v outer=%v inner=%v visibility=%s error=%q",
		r.Bot, r.BotKind, r.Detections, r.HasFocus, r.HasFocusAfter, r.Webdriver, r.Screen, r.Outer, r.Inner, r.Visibility, r.Error)
}

type botdSite struct {
	*site
	mu      sync.Mutex
	reports map[string]chan botdReport
}

func newBotdSite(t *testing.T) *botdSite {
	bundle := botdBundle(t)
	b := &botdSite{site: newSite(t, "127.0.0.1"), reports: map[string]chan botdReport{}}
	b.page("/botd", botdPage)
	b.handle("/botd.esm.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		w.Write(bundle)
	})
	b.handle("/botd-report", func(w http.ResponseWriter, r *http.Request) {
		var rep botdReport
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &rep); err != nil {
			rep.Error = "unreadable report: " + string(body)
		}
		b.chanFor(r.URL.Query().Get("side")) <- rep
	})
	return b
}

func (b *botdSite) chanFor(side string) chan botdReport {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reports[side] == nil {
		b.reports[side] = make(chan botdReport, 1)
	}
	return b.reports[side]
}

func (b *botdSite) wait(t *testing.T, side string) botdReport {
	t.Helper()
	select {
	case r := <-b.chanFor(side):
		return r
	case <-time.After(60 * time.Second):
		t.Fatalf("no BotD report from %s", side)
	}
	return botdReport{}
}

// plainBotd opens the page in plain Chromium the way a person does: the
// URL given at launch, no DevTools client at all.
func plainBotd(t *testing.T, b *botdSite, side string, headless bool) botdReport {
	t.Helper()
	stop := startPlain(t, append(plainArgs(t.TempDir(), headless), b.URL+"/botd?side="+side)...)
	defer stop()
	return b.wait(t, side)
}

func lyradBotd(t *testing.T, b *botdSite, side string, env ...string) (botdReport, []string) {
	t.Helper()
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, env...)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": b.URL + "/botd?side=" + side}), "ok")
	argv := browserCmdline(t, dir)
	r := b.wait(t, side)
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	return r, argv
}

// TestBotDHeadless: BotD, run in lyrad's tab, does not flag it, and the tab
// has what a person's has: focus, no webdriver, a desktop-sized screen and
// window. Plain headless Chromium is measured in the same run and reported.
func TestBotDHeadless(t *testing.T) {
	needBrowser(t)
	b := newBotdSite(t)
	plain := plainBotd(t, b, "plain", true)
	t.Logf("plain headless Chromium: %v", plain)
	ly, argv := lyradBotd(t, b, "lyrad", "LYRA_BROWSER_HEADLESS=true")
	t.Logf("lyrad headless: %v", ly)
	wantPersonLike(t, "headless", ly, plain, argv)
	if ly.Screen[0] < 1280 || ly.Screen[1] < 720 || ly.Outer[0] < 1280 || ly.Outer[1] < 720 || ly.Outer[0] > ly.Screen[0] || ly.Outer[1] > ly.Screen[1] {
		t.Errorf("headless screen %v, window %v: want a desktop's (at least 1280x720, the window inside the screen)", ly.Screen, ly.Outer)
	}
}

// TestBotDHeadful: the same with a window (Xvfb), where the window has no
// "controlled by automated test software" infobar: the page gets the
// height plain Chromium's does. (As root both windows show Chrome's
// --no-sandbox warning instead, which --enable-automation would replace
// rather than add to: there the command line check is the one that tells.)
func TestBotDHeadful(t *testing.T) {
	needBrowser(t)
	b := newBotdSite(t)
	display := startXvfb(t)
	t.Setenv("DISPLAY", display)
	plain := plainBotd(t, b, "plain", false)
	t.Logf("plain headful Chromium: %v", plain)
	ly, argv := lyradBotd(t, b, "lyrad", "LYRA_BROWSER_HEADLESS=false", "DISPLAY="+display)
	t.Logf("lyrad headful: %v", ly)
	wantPersonLike(t, "headful", ly, plain, argv)
	if chrome, plainChrome := ly.Outer[1]-ly.Inner[1], plain.Outer[1]-plain.Inner[1]; chrome != plainChrome {
		t.Errorf("the window's own height above the page is %d px under lyrad, %d px in plain Chromium: an infobar?", chrome, plainChrome)
	}
}

func wantPersonLike(t *testing.T, mode string, ly, plain botdReport, argv []string) {
	t.Helper()
	if ly.Error != "" || plain.Error != "" {
		t.Fatalf("BotD failed: lyrad %q, plain %q", ly.Error, plain.Error)
	}
	if ly.Bot {
		t.Errorf("%s: BotD flags lyrad as %q (%v)", mode, ly.BotKind, ly.Detections)
	}
	if ly.Webdriver {
		t.Errorf("%s: navigator.webdriver is true under lyrad", mode)
	}
	if !ly.HasFocus || !ly.HasFocusAfter {
		t.Errorf("%s: document.hasFocus() is %v (after BotD: %v) in lyrad's tab; plain Chromium: %v/%v", mode, ly.HasFocus, ly.HasFocusAfter, plain.HasFocus, plain.HasFocusAfter)
	}
	if ly.Visibility != "visible" {
		t.Errorf("%s: lyrad's tab is %q", mode, ly.Visibility)
	}
	for _, a := range argv {
		if a == "--enable-automation" {
			t.Errorf("%s: lyrad launched the browser with %s", mode, a)
		}
	}
	if s := strings.Join(argv, " "); !strings.Contains(s, "--disable-blink-features=AutomationControlled") {
		t.Errorf("%s: lyrad's launch lacks --disable-blink-features=AutomationControlled: %s", mode, s)
	}
}
