// Command act-bench measures lyrad's acting tools through MCP over loopback:
// the median click (a button that navigates nowhere) and the median
// type_text, each a full tool call from the go-sdk client to the answer.
// Targets: click < 50 ms, type_text < 30 ms.
//
// When Playwright MCP (@playwright/mcp) is installed, the same steps are
// driven through its browser_click and browser_type in the same run, on the
// same page and the same Chromium, and when chrome-devtools-mcp is, through
// its click and fill (by the uid its take_snapshot gives); all are
// reported:
//
//	go run ./e2e/cmd/act-bench -lyrad bin/lyrad [-n 50] [-playwright-mcp path/to/@playwright/mcp/cli.js] [-chrome-devtools-mcp DIR]
//
// Without -playwright-mcp it looks at $PLAYWRIGHT_MCP, then at the global
// npm modules. DIR is where `npm install chrome-devtools-mcp` ran
// (node_modules inside); $CHROME_DEVTOOLS_MCP_DIR works too.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/lyrad/lyrad/e2e/benchkit"
)

var benchPage = `<!doctype html><title>act-bench</title>
<h1>act-bench</h1>
<p>A small form, like the ones agents fill.</p>
<label>Name <input id=name name=name></label>
<button id=press onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Press me</button>
<p id=out></p>`

func main() {
	bin := flag.String("lyrad", "bin/lyrad", "lyrad binary")
	n := flag.Int("n", 50, "calls of each tool to time")
	pw := flag.String("playwright-mcp", "", "path to @playwright/mcp's cli.js (default: $PLAYWRIGHT_MCP, then the global npm modules)")
	cd := flag.String("chrome-devtools-mcp", os.Getenv("CHROME_DEVTOOLS_MCP_DIR"), "directory where chrome-devtools-mcp is installed (node_modules inside)")
	browser := flag.String("chromium", "/usr/bin/chromium", "browser the peers drive")
	rows := flag.Int("rows", 0, "add this many rows (a link and a button each) to the page: the cost of a larger map")
	flag.Parse()
	for i := 1; i <= *rows; i++ {
		benchPage += fmt.Sprintf("\n<div>Row %d <a href=\"#r%d\">Open %d</a> <button>Star %d</button></div>", i, i, i, i)
	}
	if err := run(*bin, *n, *pw, *cd, *browser); err != nil {
		fmt.Fprintln(os.Stderr, "act-bench:", err)
		os.Exit(1)
	}
}

func run(bin string, n int, pw, cdDir, browser string) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	page := "http://" + ln.Addr().String() + "/"
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, benchPage)
	}))

	lyClick, lyRef, lyType, err := benchLyrad(bin, page, n)
	if err != nil {
		return err
	}
	fmt.Printf("lyrad      click (CSS selector, no navigation), median of %d: %v  (p90 %v)   target < 50ms\n", n, r(median(lyClick)), r(pct(lyClick, 0.9)))
	if len(lyRef) > 0 {
		fmt.Printf("lyrad      click (aria-ref from read_page tree), median of %d: %v  (p90 %v)\n", n, r(median(lyRef)), r(pct(lyRef, 0.9)))
	}
	fmt.Printf("lyrad      type_text, median of %d: %v  (p90 %v)   target < 30ms\n", n, r(median(lyType)), r(pct(lyType, 0.9)))
	fmt.Printf("lyrad      read_page tree, median of %d: %v  (p90 %v)\n", n, r(median(lyReads)), r(pct(lyReads, 0.9)))

	// lyrad's Playwright MCP surface, through the same steps as Playwright
	// MCP: the same client calls, so the two compare tool for tool.
	lySurf, lyErr := benchLyradPlaywright(bin, browser, page, n)
	if lyErr != nil {
		fmt.Printf("lyrad --surface playwright: %v\n", lyErr)
	} else {
		lySurf.report("lyrad --surface playwright")
	}
	if cli := findPlaywrightMCP(pw); cli == "" {
		fmt.Println("Playwright MCP: not installed (npm install @playwright/mcp, then -playwright-mcp node_modules/@playwright/mcp/cli.js); not compared")
	} else if pwRes, name, err := benchPlaywright(cli, browser, page, n); err != nil {
		fmt.Printf("Playwright MCP (%s): %v\n", cli, err)
	} else {
		reportPeer(name, "Playwright MCP", "browser_click (ref)", "browser_type (ref)", pwRes.click, pwRes.typing, lyClick, lyType)
		fmt.Printf("%s browser_snapshot, median of %d: %v  (p90 %v)\n", name, len(pwRes.snap), r(median(pwRes.snap)), r(pct(pwRes.snap, 0.9)))
		if lyErr == nil {
			fmt.Printf("lyrad --surface playwright / Playwright MCP, same calls: browser_click %.2f, browser_type %.2f, browser_snapshot %.2f\n",
				ratio(lySurf.click, pwRes.click), ratio(lySurf.typing, pwRes.typing), ratio(lySurf.snap, pwRes.snap))
		}
	}

	if script := benchkit.ChromeDevtoolsScript(cdDir); script == "" {
		fmt.Println("chrome-devtools-mcp: not installed (npm install chrome-devtools-mcp in DIR, then -chrome-devtools-mcp DIR); not compared")
	} else if cdClick, cdFill, name, err := benchChromeDevtools(script, browser, page, n); err != nil {
		fmt.Printf("chrome-devtools-mcp (%s): %v\n", script, err)
	} else {
		reportPeer(name, "chrome-devtools-mcp", "click (uid)", "fill (uid)", cdClick, cdFill, lyClick, lyType)
	}
	return nil
}

// reportPeer prints a peer's click and type medians and lyrad's ratio to
// each.
func reportPeer(name, short, clickTool, typeTool string, click, typ, lyClick, lyType []time.Duration) {
	fmt.Printf("%s %s, median of %d: %v  (p90 %v)\n", name, clickTool, len(click), r(median(click)), r(pct(click, 0.9)))
	fmt.Printf("%s %s, median of %d: %v  (p90 %v)\n", name, typeTool, len(typ), r(median(typ)), r(pct(typ, 0.9)))
	fmt.Printf("lyrad / %s: click %.2f, type %.2f\n", short,
		float64(median(lyClick))/float64(median(click)), float64(median(lyType))/float64(median(typ)))
}

func r(d time.Duration) time.Duration { return d.Round(100 * time.Microsecond) }

// benchLyrad times click and type_text through lyrad's daemon over
// streamable HTTP on loopback.
// lyReads are the whole-page tree reads timed after the acting calls: what
// a click's changes cost is about one of them.
var lyReads []time.Duration

func benchLyrad(bin, page string, n int) (click, clickRef, typing []time.Duration, err error) {
	dataDir, err := os.MkdirTemp("", "act-bench")
	if err != nil {
		return nil, nil, nil, err
	}
	defer os.RemoveAll(dataDir)
	d, err := benchkit.StartDaemon(bin, dataDir)
	if err != nil {
		return nil, nil, nil, err
	}
	defer d.Stop()
	cs, err := d.Connect("act-bench")
	if err != nil {
		return nil, nil, nil, err
	}
	defer cs.Close()
	if _, err := callOK(cs, "navigate", map[string]any{"url": page}); err != nil {
		return nil, nil, nil, err
	}
	// Warm up: the first call makes the isolated world.
	for i := 0; i < 3; i++ {
		if _, err := callOK(cs, "click", map[string]any{"selector": "#press"}); err != nil {
			return nil, nil, nil, err
		}
	}
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := callOK(cs, "click", map[string]any{"selector": "#press"}); err != nil {
			return nil, nil, nil, err
		}
		click = append(click, time.Since(start))
	}
	if env, err := callOK(cs, "read_page", map[string]any{"mode": "tree"}); err == nil {
		if m := regexp.MustCompile(`aria-ref=(e\d+) button "Press me"`).FindStringSubmatch(fmt.Sprint(env["tree"])); m != nil {
			for i := 0; i < n; i++ {
				start := time.Now()
				if _, err := callOK(cs, "click", map[string]any{"selector": "aria-ref=" + m[1]}); err != nil {
					return nil, nil, nil, err
				}
				clickRef = append(clickRef, time.Since(start))
			}
		}
	}
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := callOK(cs, "type_text", map[string]any{"selector": "#name", "text": fmt.Sprintf("Ada Lovelace %d", i)}); err != nil {
			return nil, nil, nil, err
		}
		typing = append(typing, time.Since(start))
	}
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := callOK(cs, "read_page", map[string]any{"mode": "tree"}); err != nil {
			return nil, nil, nil, err
		}
		lyReads = append(lyReads, time.Since(start))
	}
	_, _ = callOK(cs, "close_browser", nil)
	return click, clickRef, typing, nil
}

// surfaceTimes are one Playwright MCP surface's medians' inputs.
type surfaceTimes struct{ click, typing, snap []time.Duration }

func (t surfaceTimes) report(name string) {
	for _, x := range []struct {
		tool string
		ds   []time.Duration
	}{{"browser_click (ref)", t.click}, {"browser_type (ref)", t.typing}, {"browser_snapshot", t.snap}} {
		fmt.Printf("%s %s, median of %d: %v  (p90 %v)\n", name, x.tool, len(x.ds), r(median(x.ds)), r(pct(x.ds, 0.9)))
	}
}

func ratio(a, b []time.Duration) float64 { return float64(median(a)) / float64(median(b)) }

// benchPlaywright drives Playwright MCP over stdio through the same steps:
// open the page, take the snapshot that gives refs, then click and type by
// ref, then time the snapshot.
func benchPlaywright(cli, browser, page string, n int) (surfaceTimes, string, error) {
	p, err := benchkit.StartPlaywright(cli, browser)
	if err != nil {
		return surfaceTimes{}, "", err
	}
	defer p.Close()
	t, err := benchSurface(p, page, n)
	return t, p.Name, err
}

// benchLyradPlaywright drives `lyrad stdio --surface playwright` through
// the same steps, headless on a data directory of its own, the page's
// site trusted by the operator (the bench's client asks no user).
func benchLyradPlaywright(bin, browser, page string, n int) (surfaceTimes, error) {
	tmp, err := os.MkdirTemp("", "act-bench-pw")
	if err != nil {
		return surfaceTimes{}, err
	}
	cmd := exec.Command(bin, "stdio", "--surface", "playwright", "--headless", "--executable-path", browser,
		"--data-dir", filepath.Join(tmp, "data"), "--allowed-origins", strings.TrimSuffix(page, "/"))
	p, err := benchkit.StartPeer("lyrad --surface playwright", cmd, tmp)
	if err != nil {
		return surfaceTimes{}, err
	}
	defer p.Close()
	return benchSurface(p, page, n)
}

// benchSurface times a Playwright MCP surface: click and type by the refs
// its snapshot gives, then the snapshot itself.
func benchSurface(p *benchkit.Peer, page string, n int) (surfaceTimes, error) {
	var t surfaceTimes
	// Newer versions name the element "target", older ones "ref".
	refArg := "ref"
	if tools, err := p.CS.ListTools(context.Background(), nil); err == nil {
		for _, tl := range tools.Tools {
			if tl.Name == "browser_click" && strings.Contains(fmt.Sprint(tl.InputSchema), "target") {
				refArg = "target"
			}
		}
	}
	if _, err := p.Call("browser_navigate", map[string]any{"url": page}); err != nil {
		return t, err
	}
	snap, err := p.Call("browser_snapshot", nil)
	if err != nil {
		return t, err
	}
	btn := regexp.MustCompile(`button "Press me" \[ref=(\w+)\]`).FindStringSubmatch(snap)
	box := regexp.MustCompile(`textbox "Name" \[ref=(\w+)\]`).FindStringSubmatch(snap)
	if btn == nil || box == nil {
		return t, errors.New("no refs for the button and the field in its snapshot:\n" + snap)
	}
	t.click, t.typing, err = timeActs(n,
		func() error {
			_, err := p.Call("browser_click", map[string]any{"element": "Press me button", refArg: btn[1]})
			return err
		},
		func(text string) error {
			_, err := p.Call("browser_type", map[string]any{"element": "Name field", refArg: box[1], "text": text})
			return err
		})
	if err != nil {
		return t, err
	}
	for i := 0; i < n; i++ {
		start := time.Now()
		if _, err := p.Call("browser_snapshot", nil); err != nil {
			return t, err
		}
		t.snap = append(t.snap, time.Since(start))
	}
	return t, nil
}

// benchChromeDevtools drives chrome-devtools-mcp over stdio through the
// same steps: open the page in a new tab (which gives its pageId), take
// the snapshot that gives uids, then click and fill by uid.
func benchChromeDevtools(script, browser, page string, n int) (click, fill []time.Duration, name string, err error) {
	p, err := benchkit.StartChromeDevtools(script, browser)
	if err != nil {
		return nil, nil, "", err
	}
	defer p.Close()
	pages, err := p.Call("new_page", map[string]any{"url": page})
	if err != nil {
		return nil, nil, p.Name, err
	}
	m := regexp.MustCompile(`(?m)^(\d+): .*\[selected\]$`).FindStringSubmatch(pages)
	if m == nil {
		return nil, nil, p.Name, errors.New("no selected page in new_page's answer:\n" + pages)
	}
	id, _ := strconv.Atoi(m[1])
	snap, err := p.Call("take_snapshot", map[string]any{"pageId": id})
	if err != nil {
		return nil, nil, p.Name, err
	}
	btn := regexp.MustCompile(`uid=(\S+) button "Press me"`).FindStringSubmatch(snap)
	box := regexp.MustCompile(`uid=(\S+) textbox "Name"`).FindStringSubmatch(snap)
	if btn == nil || box == nil {
		return nil, nil, p.Name, errors.New("no uids for the button and the field in its snapshot:\n" + snap)
	}
	click, fill, err = timeActs(n,
		func() error {
			_, err := p.Call("click", map[string]any{"pageId": id, "uid": btn[1]})
			return err
		},
		func(text string) error {
			_, err := p.Call("fill", map[string]any{"pageId": id, "uid": box[1], "value": text})
			return err
		})
	return click, fill, p.Name, err
}

// timeActs clicks 3 times to warm up, then times n clicks and n typings.
func timeActs(n int, click func() error, typeText func(string) error) (clicks, typings []time.Duration, err error) {
	for i := 0; i < 3; i++ {
		if err := click(); err != nil {
			return nil, nil, err
		}
	}
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := click(); err != nil {
			return nil, nil, err
		}
		clicks = append(clicks, time.Since(start))
	}
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := typeText(fmt.Sprintf("Ada Lovelace %d", i)); err != nil {
			return nil, nil, err
		}
		typings = append(typings, time.Since(start))
	}
	return clicks, typings, nil
}

func findPlaywrightMCP(flagged string) string {
	candidates := []string{flagged, os.Getenv("PLAYWRIGHT_MCP")}
	if out, err := exec.Command("npm", "root", "-g").Output(); err == nil {
		candidates = append(candidates, filepath.Join(strings.TrimSpace(string(out)), "@playwright", "mcp", "cli.js"))
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			c = filepath.Join(c, "cli.js")
		}
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return ""
}

var callOK = benchkit.CallOK

func median(ds []time.Duration) time.Duration { return benchkit.Median(ds) }

func pct(ds []time.Duration, p float64) time.Duration { return benchkit.Pct(ds, p) }
