// Command read-bench measures read_page(mode="tree") through MCP on real
// pages: the six saved pages of ../shared/fixtures/pages, a large form and
// a small app page, served on loopback. It drives lyrad's binary with the
// go-sdk client and, when they are installed, Playwright MCP
// (browser_snapshot) and chrome-devtools-mcp (take_snapshot) through the
// same steps in the same run, and reports per page the median read time,
// the tree size in characters, the ratios lyrad/peer, and which links,
// buttons and text fields Playwright's snapshot lists that lyrad's tree
// does not (chrome-devtools-mcp's snapshot is another format: it is timed
// and sized, not searched for what lyrad lacks).
//
//	go run ./e2e/cmd/read-bench -lyrad bin/lyrad [-playwright-mcp DIR] [-chrome-devtools-mcp DIR] [-n 5] [-v] [-dump OUTDIR] [-surface]
//
// With -surface it also reads each page through lyrad's Playwright MCP
// surface (`lyrad stdio --surface playwright`, browser_snapshot: the same
// map, nested) and sets its snapshot's size and time beside Playwright
// MCP's.
//
// With -walk it times the in-page walk alone instead, for one or more
// JSTree scripts side by side (this tree's, or another commit's written by
// -print-js), and with -profile shows where a walk spends its time:
//
//	go run ./e2e/cmd/read-bench -print-js > new.js   # in each tree
//	go run ./e2e/cmd/read-bench -walk old.js,new.js [-n 15] [-profile 1]
//
// DIR is where `npm install @playwright/mcp chrome-devtools-mcp` ran (its
// node_modules holds the packages); PLAYWRIGHT_MCP_DIR and
// CHROME_DEVTOOLS_MCP_DIR work too. Without one, its columns are left out.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/e2e/benchkit"
	"github.com/lyrad/lyrad/snapshot"
)

func main() {
	lyrad := flag.String("lyrad", "bin/lyrad", "lyrad binary")
	pages := flag.String("pages", "../shared/fixtures/pages", "directory of saved pages")
	pwDir := flag.String("playwright-mcp", os.Getenv("PLAYWRIGHT_MCP_DIR"), "directory where @playwright/mcp is installed (node_modules inside)")
	cdDir := flag.String("chrome-devtools-mcp", os.Getenv("CHROME_DEVTOOLS_MCP_DIR"), "directory where chrome-devtools-mcp is installed (node_modules inside)")
	browser := flag.String("browser", "/usr/bin/chromium", "browser executable for the peers")
	n := flag.Int("n", 5, "reads per page")
	verbose := flag.Bool("v", false, "print what is missing")
	flag.StringVar(&lyradLog, "lyrad-log", "warn", "lyrad's log level (debug shows where each tree read spent its time)")
	flag.StringVar(&dumpDir, "dump", "", "write each page's lyrad tree and Playwright snapshot into this directory")
	flag.BoolVar(&surface, "surface", false, "also time and size browser_snapshot of lyrad's Playwright surface (lyrad stdio --surface playwright)")
	walk := flag.String("walk", "", "time the in-page walk alone: comma-separated JSTree scripts (files written by -print-js, or \"this\" for this tree's), side by side")
	profile := flag.Int("profile", -1, "with -walk: profile the walk of this script (0 the first) on each page")
	eval := flag.String("eval", "", "with -walk: a function to run in the first script's world on each page, its answer printed (a probe while profiling); @FILE reads it from FILE")
	printJS := flag.Bool("print-js", false, "print this tree's JSTree script (for -walk from another tree) and exit")
	flag.Parse()
	if *printJS {
		fmt.Print(snapshot.JSTree)
		return
	}
	if *walk != "" {
		if f, ok := strings.CutPrefix(*eval, "@"); ok {
			// A probe holding whole scripts outgrows one argument's limit.
			b, err := os.ReadFile(f)
			if err != nil {
				fmt.Fprintln(os.Stderr, "read-bench:", err)
				os.Exit(1)
			}
			*eval = string(b)
		}
		if err := walkBench(strings.Split(*walk, ","), *pages, *browser, *n, *profile, *eval); err != nil {
			fmt.Fprintln(os.Stderr, "read-bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*lyrad, *pages, *pwDir, *cdDir, *browser, *n, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "read-bench:", err)
		os.Exit(1)
	}
}

// lyradLog is lyrad's log level, on its stderr.
var lyradLog string

// dumpDir, when set, receives NAME.lyrad.txt, NAME.pw.yaml and
// NAME.cdm.txt per page (and NAME.surface.yaml with -surface).
var dumpDir string

// surface: read through lyrad's Playwright surface too.
var surface bool

// result is one server's reading of one page.
type result struct {
	median    time.Duration
	chars     int    // characters of the full tree / snapshot
	tree      string // the full tree / snapshot
	defChars  int    // characters of a default read_page answer
	truncated bool

	firstPages []time.Duration // lyrad: the first page of each whole read
}

func run(lyradBin, pagesDir, pwDir, cdDir, browser string, n int, verbose bool) error {
	names, err := pageNames(pagesDir)
	if err != nil {
		return err
	}
	base, stop, err := serve(pagesDir)
	if err != nil {
		return err
	}
	defer stop()

	ctx := context.Background()
	lyDir, err := os.MkdirTemp("", "read-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(lyDir)
	ly, err := connectLyrad(ctx, lyradBin, lyDir)
	if err != nil {
		return err
	}
	defer ly.Close()
	var surf *mcp.ClientSession
	if surface {
		dir, err := os.MkdirTemp("", "read-bench-surface")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if surf, err = connectSurface(ctx, lyradBin, browser, dir); err != nil {
			return fmt.Errorf("lyrad --surface playwright: %w", err)
		}
		defer surf.Close()
	}
	var pw *mcp.ClientSession
	if cli := benchkit.PlaywrightScript(pwDir); cli != "" {
		p, err := benchkit.StartPlaywright(cli, browser)
		if err != nil {
			return fmt.Errorf("playwright mcp: %w", err)
		}
		defer p.Close()
		pw = p.CS
	} else {
		fmt.Println("Playwright MCP not found (pass -playwright-mcp DIR after `npm install @playwright/mcp` in DIR): not compared.")
	}
	var cd *benchkit.Peer
	if script := benchkit.ChromeDevtoolsScript(cdDir); script != "" {
		if cd, err = benchkit.StartChromeDevtools(script, browser); err != nil {
			return fmt.Errorf("chrome-devtools-mcp: %w", err)
		}
		defer cd.Close()
		fmt.Printf("%s: take_snapshot timed and sized beside lyrad; missing actionables are counted against Playwright's snapshot only (chrome-devtools-mcp's is another format).\n", cd.Name)
	} else {
		fmt.Println("chrome-devtools-mcp not found (pass -chrome-devtools-mcp DIR after `npm install chrome-devtools-mcp` in DIR): not compared.")
	}

	// lyrad ms reads every page of the tree (next_offset); 1st pg is the
	// first page alone; time is lyrad ms over pw ms, size chars over chars;
	// the same for chrome-devtools-mcp (cdm) after the Playwright columns.
	header := fmt.Sprintf("%-18s | %12s %10s %9s %9s | %12s %10s | %6s %6s %8s %8s", "page", "lyrad chars", "lyrad ms", "1st pg", "default", "pw chars", "pw ms", "time", "size", "missing", "left out")
	if cd != nil {
		header += fmt.Sprintf(" | %12s %10s | %6s %6s", "cdm chars", "cdm ms", "time", "size")
	}
	fmt.Println(header)
	fmt.Println(strings.Repeat("-", len(header)))
	var sumLy, sumPw, sumCd, sumSurf int
	var surfLines []string
	var allOK = true
	var missingTotal int
	for _, name := range names {
		u := base + "/" + name
		l, err := readLyrad(ctx, ly, u, n)
		if err != nil {
			return fmt.Errorf("lyrad %s: %w", name, err)
		}
		if l.defChars > 20000 {
			allOK = false
		}
		if dumpDir != "" {
			os.WriteFile(filepath.Join(dumpDir, name+".lyrad.txt"), []byte(l.tree), 0o644)
		}
		realPage := !strings.HasPrefix(name, "large-form") && name != "app.html" && name != "tiny.html"
		if realPage {
			sumLy += l.chars
		}
		line := fmt.Sprintf("%-18s | %12d %10.1f %9.1f %9d |", name, l.chars, ms(l.median), ms(median(l.firstPages)), l.defChars)
		var sr result
		if surf != nil {
			if sr, err = readPlaywright(ctx, surf, u, n); err != nil {
				return fmt.Errorf("lyrad --surface playwright %s: %w", name, err)
			}
			if dumpDir != "" {
				os.WriteFile(filepath.Join(dumpDir, name+".surface.yaml"), []byte(sr.tree), 0o644)
			}
			if realPage {
				sumSurf += sr.chars
			}
		}
		var cdCols string
		if cd != nil {
			c, err := readChromeDevtools(cd, u, n)
			if err != nil {
				return fmt.Errorf("chrome-devtools-mcp %s: %w", name, err)
			}
			if dumpDir != "" {
				os.WriteFile(filepath.Join(dumpDir, name+".cdm.txt"), []byte(c.tree), 0o644)
			}
			if realPage {
				sumCd += c.chars
			}
			cdCols = fmt.Sprintf(" | %12d %10.1f | %5.2fx %5.0f%%", c.chars, ms(c.median), float64(l.median)/float64(max(1, c.median)), 100*float64(l.chars)/float64(max(1, c.chars)))
		}
		if pw == nil {
			if surf != nil {
				surfLines = append(surfLines, fmt.Sprintf("%-18s | %12d %10.1f |", name, sr.chars, ms(sr.median)))
			}
			if cd != nil {
				line += fmt.Sprintf(" %12s %10s | %6s %6s %8s %8s", "-", "-", "-", "-", "-", "-")
			}
			fmt.Println(line + cdCols)
			continue
		}
		p, err := readPlaywright(ctx, pw, u, n)
		if err != nil {
			return fmt.Errorf("playwright %s: %w", name, err)
		}
		if dumpDir != "" {
			os.WriteFile(filepath.Join(dumpDir, name+".pw.yaml"), []byte(p.tree), 0o644)
		}
		pageURL, _ := url.Parse(u)
		missing := compare(pageURL, p.tree, l.tree)
		// What lyrad leaves out on purpose: elements with no box on the
		// page, and those inside aria-hidden (out of Chrome's
		// accessibility tree).
		var unseen []string
		missing, unseen = boxless(ctx, pw, missing)
		missingTotal += len(missing)
		ratio := float64(l.chars) / float64(max(1, p.chars))
		if realPage {
			sumPw += p.chars
		}
		fmt.Printf("%s %12d %10.1f | %5.2fx %5.0f%% %8d %8d%s\n", line, p.chars, ms(p.median), float64(l.median)/float64(max(1, p.median)), 100*ratio, len(missing), len(unseen), cdCols)
		if surf != nil {
			surfLines = append(surfLines, fmt.Sprintf("%-18s | %12d %10.1f | %12d %10.1f | %5.2fx %5.0f%%", name, sr.chars, ms(sr.median), p.chars, ms(p.median),
				float64(sr.median)/float64(max(1, p.median)), 100*float64(sr.chars)/float64(max(1, p.chars))))
		}
		if verbose {
			for _, m := range missing {
				fmt.Printf("    missing: %s\n", m.desc)
			}
			for _, m := range unseen {
				fmt.Printf("    left out: %s\n", m)
			}
		}
	}
	if surf != nil {
		// The snapshot alone (its YAML block): browser_snapshot adds the
		// page's text under ### Page text beside it.
		fmt.Printf("\n%-18s | %12s %10s | %12s %10s | %6s %6s\n", "page", "surface chars", "surface ms", "pw chars", "pw ms", "time", "size")
		for _, l := range surfLines {
			fmt.Println(l)
		}
		if sumPw > 0 {
			fmt.Printf("six real pages: lyrad's Playwright surface %d chars, Playwright MCP %d chars: %.0f%%\n", sumSurf, sumPw, 100*float64(sumSurf)/float64(sumPw))
		}
	}
	if pw != nil && sumPw > 0 {
		fmt.Printf("\nsix real pages: lyrad %d chars, Playwright %d chars: %.0f%% (target at most 40%%); actionables missing: %d\n",
			sumLy, sumPw, 100*float64(sumLy)/float64(sumPw), missingTotal)
	}
	if cd != nil && sumCd > 0 {
		fmt.Printf("six real pages: lyrad %d chars, chrome-devtools-mcp %d chars: %.0f%%\n", sumLy, sumCd, 100*float64(sumLy)/float64(sumCd))
	}
	if !allOK {
		return fmt.Errorf("a default read_page answer exceeded max_chars (20000)")
	}
	fmt.Println("every default read_page answer stayed within max_chars (20000)")
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// serve serves the saved pages with the CSP their README asks for (so the
// browser drops off-machine requests at once), plus two generated pages.
func serve(dir string) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self' 'unsafe-inline' data:")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch name := filepath.Base(r.URL.Path); name {
		case "large-form.html":
			w.Write([]byte(largeForm()))
		case "app.html":
			w.Write([]byte(appPage))
		case "tiny.html":
			w.Write([]byte(tinyPage))
		default:
			http.ServeFile(w, r, filepath.Join(dir, name))
		}
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// largeForm is a 400-field form in the shape of a product editor.
func largeForm() string {
	var b strings.Builder
	b.WriteString("<!doctype html><title>Large form</title><h1>Edit product</h1><form>")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "<fieldset><legend>Section %d</legend>", i/20)
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, `<label for="f%d">Field %d</label><input id="f%d" name="f%d" value="value %d">`, i, i, i, i, i)
		case 1:
			fmt.Fprintf(&b, `<label><input type="checkbox" name="c%d"> Option %d</label>`, i, i)
		case 2:
			fmt.Fprintf(&b, `<label>Choice %d <select name="s%d"><option>One</option><option>Two</option><option>Three</option></select></label>`, i, i)
		case 3:
			fmt.Fprintf(&b, `<label>Notes %d <textarea name="t%d">text %d</textarea></label>`, i, i, i)
		case 4:
			fmt.Fprintf(&b, `<label><input type="radio" name="r%d"> Pick %d</label>`, i/10, i)
		}
		b.WriteString("</fieldset>")
	}
	b.WriteString(`<button type="submit">Save draft</button></form>`)
	return b.String()
}

// tinyPage is a heading and a link: what a read costs when there is
// almost nothing to read.
const tinyPage = `<!doctype html><title>Tiny</title><h1>Hello</h1><a href="/next">Next page</a>`

// appPage is a small single-page app: a nav, tabs, a dialog, a table of
// actions, built by script after load.
const appPage = `<!doctype html><title>App</title>
<header><a href="/" aria-label="Home"><svg width="20" height="20"><circle cx="10" cy="10" r="8"/></svg></a>
<nav><a href="/inbox">Inbox</a> <a href="/sent">Sent</a> <a href="/settings">Settings</a></nav>
<input type="search" aria-label="Search mail" placeholder="Search"></header>
<main><div role="tablist"><button role="tab" aria-selected="true">Primary</button><button role="tab">Social</button><button role="tab">Promotions</button></div>
<table id="rows"></table>
<div role="dialog" aria-label="Compose"><input aria-label="To"><input aria-label="Subject"><textarea aria-label="Body"></textarea><button>Send</button><button>Discard</button></div></main>
<script>
const rows = document.getElementById('rows');
for (let i = 0; i < 30; i++) {
	rows.insertAdjacentHTML('beforeend', '<tr><td><input type="checkbox" aria-label="Select message ' + i + '"></td><td><a href="/m/' + i + '">Message subject ' + i + '</a></td><td><button>Archive</button><button aria-label="Delete message ' + i + '">🗑</button></td></tr>');
}
</script>`

func connectLyrad(ctx context.Context, bin, dir string) (*mcp.ClientSession, error) {
	cmd := exec.Command(bin, "stdio")
	// Consent off: the bench measures reading, and asks nobody.
	cmd.Env = append(os.Environ(), "LYRA_BROWSER_DATA_DIR="+dir, "LYRA_BROWSER_HEADLESS=true", "LYRA_BROWSER_LOG_LEVEL="+lyradLog, "LYRA_BROWSER_CONSENT_CHANNEL=off")
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "read-bench", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
}

// connectSurface spawns lyrad's Playwright surface on its own data
// directory, headless on browser, consent off (the bench asks nobody).
func connectSurface(ctx context.Context, bin, browser, dir string) (*mcp.ClientSession, error) {
	cmd := exec.Command(bin, "stdio", "--surface", "playwright", "--headless", "--executable-path", browser, "--data-dir", dir)
	cmd.Env = append(os.Environ(), "LYRA_BROWSER_LOG_LEVEL="+lyradLog, "LYRA_BROWSER_CONSENT_CHANNEL=off")
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "read-bench", Version: "1"}, nil)
	return c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
}

func callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	cctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, err
	}
	return res, nil
}

func envelope(res *mcp.CallToolResult) map[string]any {
	var env map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &env)
	return env
}

func readLyrad(ctx context.Context, cs *mcp.ClientSession, u string, n int) (result, error) {
	res, err := callTool(ctx, cs, "navigate", map[string]any{"url": u, "wait_until": "load"})
	if err != nil {
		return result{}, err
	}
	if env := envelope(res); env["status"] != "ok" {
		return result{}, fmt.Errorf("navigate: %v", env)
	}
	var r result
	var times []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		tree, total, err := readAllPages(ctx, cs, &r)
		times = append(times, time.Since(start))
		if err != nil {
			return r, err
		}
		r.tree, r.chars = tree, total
	}
	res, err = callTool(ctx, cs, "read_page", map[string]any{"mode": "tree"})
	if err != nil {
		return r, err
	}
	env := envelope(res)
	tree, _ := env["tree"].(string)
	r.defChars = len([]rune(tree))
	r.truncated, _ = env["truncated"].(bool)
	r.median = median(times)
	return r, nil
}

// readAllPages reads the whole tree, page after page of at most 200 000
// characters (next_offset), as an agent reading a large page would; the
// first page's time goes to r.firstPages.
func readAllPages(ctx context.Context, cs *mcp.ClientSession, r *result) (string, int, error) {
	var tree strings.Builder
	offset, total := 0, 0
	for page := 0; ; page++ {
		start := time.Now()
		res, err := callTool(ctx, cs, "read_page", map[string]any{"mode": "tree", "max_chars": 200000, "offset": offset})
		if page == 0 {
			r.firstPages = append(r.firstPages, time.Since(start))
		}
		if err != nil {
			return "", 0, err
		}
		env := envelope(res)
		if env["status"] != "ok" {
			return "", 0, fmt.Errorf("read_page: %v", env)
		}
		t, _ := env["tree"].(string)
		if page > 0 {
			tree.WriteByte('\n')
		}
		tree.WriteString(t)
		total = int(env["total_chars"].(float64))
		next, _ := env["next_offset"].(float64)
		if tr, _ := env["truncated"].(bool); !tr || next <= float64(offset) {
			return tree.String(), total, nil
		}
		offset = int(next)
	}
}

var yamlBlock = regexp.MustCompile("(?s)```yaml\n(.*?)```")

func readPlaywright(ctx context.Context, cs *mcp.ClientSession, u string, n int) (result, error) {
	if _, err := callTool(ctx, cs, "browser_navigate", map[string]any{"url": u}); err != nil {
		return result{}, err
	}
	var r result
	var times []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		res, err := callTool(ctx, cs, "browser_snapshot", map[string]any{})
		times = append(times, time.Since(start))
		if err != nil {
			return r, err
		}
		var text strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text.WriteString(t.Text)
			}
		}
		snap := text.String()
		if m := yamlBlock.FindStringSubmatch(snap); m != nil {
			snap = m[1]
		}
		r.tree = snap
		r.chars = len([]rune(snap))
	}
	r.median = median(times)
	return r, nil
}

// cdmPage is the page id a chrome-devtools-mcp answer lists as selected.
var cdmPage = regexp.MustCompile(`(?m)^(\d+): .*\[selected\]$`)

// readChromeDevtools loads u in chrome-devtools-mcp's selected page and
// times take_snapshot n times; the size is the snapshot's, without the
// heading the answer puts before it.
func readChromeDevtools(cd *benchkit.Peer, u string, n int) (result, error) {
	pages, err := cd.Call("list_pages", nil)
	if err != nil {
		return result{}, err
	}
	m := cdmPage.FindStringSubmatch(pages)
	if m == nil {
		return result{}, fmt.Errorf("no selected page in list_pages: %s", pages)
	}
	id, _ := strconv.Atoi(m[1])
	if _, err := cd.Call("navigate_page", map[string]any{"pageId": id, "type": "url", "url": u}); err != nil {
		return result{}, err
	}
	var r result
	var times []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		snap, err := cd.Call("take_snapshot", map[string]any{"pageId": id})
		times = append(times, time.Since(start))
		if err != nil {
			return r, err
		}
		_, snap, _ = strings.Cut(snap, "## Latest page snapshot\n")
		r.tree = snap
		r.chars = len([]rune(snap))
	}
	r.median = median(times)
	return r, nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// pwLine is one element line of a Playwright snapshot: - role "name" [...].
var pwLine = regexp.MustCompile(`^\s*- (link|button|textbox|searchbox)(?: "((?:[^"\\]|\\.)*)")?`)

var pwRef = regexp.MustCompile(`\[ref=([a-z0-9]+)\]`)

// pwItem is an element of Playwright's snapshot lyrad's tree lacks.
type pwItem struct {
	desc, ref string
}

// boxless splits the missing items into those lyrad leaves out on purpose
// (no box on the page; inside aria-hidden, which Chrome's accessibility
// tree leaves out) and the rest, asking Playwright's own browser.
func boxless(ctx context.Context, pw *mcp.ClientSession, items []pwItem) (missing []pwItem, unseen []string) {
	for _, it := range items {
		if it.ref == "" {
			missing = append(missing, it)
			continue
		}
		res, err := callTool(ctx, pw, "browser_evaluate", map[string]any{
			"element": it.desc, "target": it.ref,
			"function": "(el) => { const r = el.getBoundingClientRect(); if (!(r.width > 0 && r.height > 0)) return 'nobox'; return el.closest('[aria-hidden=true]') ? 'ariahidden' : 'box'; }",
		})
		var text string
		if err == nil {
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					text += t.Text
				}
			}
		}
		switch {
		case strings.Contains(text, `"nobox"`):
			unseen = append(unseen, it.desc+" (no box)")
		case strings.Contains(text, `"ariahidden"`):
			// Chrome's accessibility tree leaves aria-hidden subtrees out,
			// and lyrad follows it.
			unseen = append(unseen, it.desc+" (aria-hidden)")
		default:
			missing = append(missing, it)
		}
	}
	return missing, unseen
}

// lyLine is one line of lyrad's tree.
var lyLine = regexp.MustCompile(`^aria-ref=e\d+ (\S+)(?: "((?:[^"\\]|\\.)*)")?`)

// lyEntry is one line of lyrad's tree; a Playwright element uses up the
// line it is matched with, so one line never answers for two elements.
type lyEntry struct {
	role, name, href string
	used             bool
}

// pwEntry is one link, button or text field of Playwright's snapshot.
type pwEntry struct {
	line       int // in the snapshot
	role, name string
	url        string // the link's /url: the href as written
	ref        string
	matched    bool
}

// compare lists the links, buttons and text fields of Playwright's
// snapshot (by role and name) that lyrad's tree lacks. Names are compared
// with whitespace collapsed; lyrad cuts names past 160 characters, so a
// prefix match counts.
//
// Exact matches are made first, over the whole snapshot; then, for what is
// left, in this order: a name that differs only in case, when the link
// goes to the same place (CSS text-transform: Chrome names an element by
// the text as shown, Playwright by the text as written); a cut name; and
// for a link Playwright leaves unnamed, the same href or the name its
// content gives it.
func compare(page *url.URL, pw, ly string) []pwItem {
	var have []*lyEntry
	for _, l := range strings.Split(ly, "\n") {
		m := lyLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		e := &lyEntry{role: m[1], name: unquote(m[2])}
		if _, h, ok := strings.Cut(l, " -> "); ok && m[1] == "link" {
			e.href = h
		}
		have = append(have, e)
	}
	take := func(ok func(e *lyEntry) bool) bool {
		for _, e := range have {
			if !e.used && ok(e) {
				e.used = true
				return true
			}
		}
		return false
	}
	pwLines := strings.Split(pw, "\n")
	var want []*pwEntry
	for i, l := range pwLines {
		m := pwLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		r := pwRef.FindStringSubmatch(l)
		if r == nil {
			// Playwright gives no ref to what cannot receive a click (no
			// box, covered): listed, but not actionable by its own count.
			continue
		}
		e := &pwEntry{line: i, role: m[1], name: strings.Join(strings.Fields(unquote(m[2])), " "), ref: r[1]}
		if i+1 < len(pwLines) {
			if u, ok := strings.CutPrefix(strings.TrimSpace(pwLines[i+1]), "- /url: "); ok {
				e.url = strings.Trim(u, `"'`)
			}
		}
		want = append(want, e)
	}
	// Exact: role, name and href; then role and name, for a named
	// element (an unnamed link is only told from another by its href).
	for _, w := range want {
		w.matched = take(func(e *lyEntry) bool { return e.role == w.role && e.name == w.name && sameHref(page, w.url, e.href) })
	}
	for _, w := range want {
		if !w.matched && (w.name != "" || w.role != "link") {
			w.matched = take(func(e *lyEntry) bool { return e.role == w.role && e.name == w.name })
		}
	}
	var missing []pwItem
	for _, w := range want {
		if w.matched {
			continue
		}
		switch {
		case w.name != "" && take(func(e *lyEntry) bool {
			return e.role == w.role && strings.EqualFold(e.name, w.name) && (w.role != "link" || sameHref(page, w.url, e.href))
		}):
		case take(func(e *lyEntry) bool {
			p, ok := strings.CutSuffix(e.name, "…")
			return ok && e.role == w.role && strings.HasPrefix(w.name, p)
		}):
		// Playwright leaves a link's name out when its content says it
		// (an image, a heading); such a link is matched by its URL, or by
		// the name its content gives it (the img's alt, the heading's
		// text), which is how Chrome names it.
		case w.role == "link" && w.name == "" && w.url != "" && take(func(e *lyEntry) bool { return e.role == "link" && sameHref(page, w.url, e.href) }):
		case w.role == "link" && w.name == "" && takeByContent(take, pwLines, w.line):
		default:
			it := pwItem{desc: fmt.Sprintf("%s %q", w.role, w.name), ref: w.ref}
			if w.url != "" {
				it.desc += " -> " + w.url
			}
			missing = append(missing, it)
		}
	}
	return missing
}

var pwName = regexp.MustCompile(`- \S+ "((?:[^"\\]|\\.)*)"|- text: (.*)$`)

// takeByContent matches a nameless Playwright link to a lyrad link named
// after the link's content: one descendant's name, or all of them joined.
func takeByContent(take func(func(*lyEntry) bool) bool, lines []string, i int) bool {
	indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
	var names []string
	for _, l := range lines[i+1:] {
		if len(l)-len(strings.TrimLeft(l, " ")) <= indent {
			break
		}
		if m := pwName.FindStringSubmatch(l); m != nil {
			names = append(names, strings.Join(strings.Fields(unquote(m[1]+m[2])), " "))
		}
	}
	if len(names) == 0 {
		return false
	}
	for _, n := range append([]string{strings.Join(names, " ")}, names...) {
		if n != "" && take(func(e *lyEntry) bool { return e.role == "link" && e.name == n }) {
			return true
		}
	}
	return false
}

// sameHref reports whether a Playwright /url (the href attribute as
// written: relative, protocol-relative or absolute) is a lyrad link's href
// (a path for the page's own origin, else the full URL Chrome resolved):
// both are resolved against the page, and compared percent-decoded, since
// Chrome escapes what the attribute may hold raw ("mailto:?subject=a b" is
// "mailto:?subject=a%20b").
//
// lyrad prints no href for a javascript: link (it goes nowhere): such a
// link is one without an href.
func sameHref(page *url.URL, pw, ly string) bool {
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(pw)), "javascript:") {
		return ly == ""
	}
	if pw == "" || ly == "" {
		return false
	}
	return absHref(page, pw) == absHref(page, ly)
}

func absHref(page *url.URL, h string) string {
	if u, err := url.Parse(strings.TrimSpace(h)); err == nil && page != nil {
		u = page.ResolveReference(u)
		if u.Host != "" && u.Path == "" && u.Opaque == "" {
			u.Path = "/" // https://a.test is https://a.test/
		}
		h = u.String()
	}
	if d, err := url.PathUnescape(h); err == nil {
		h = d
	}
	return h
}

func unquote(s string) string {
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}
