// Command soak is a day of use in a few minutes: -calls tool calls
// (navigate, read_page, click, type_text, tabs list/switch/close, tabs
// opened by target=_blank links and window.open) over up to -tabs tabs, by
// -clients MCP clients that take turns through the same front door under
// the same client name, each disconnecting after -reconnect calls so the
// next resumes the held browser within LYRA_BROWSER_RECONNECT_GRACE (and is
// asked for its grants again: confirm=true on the legacy channel).
//
// Every -every calls, with the tabs back to one, it samples the daemon's
// RSS, goroutines and open fds (the admin socket's status verb) and
// Chrome's RSS (summed over the browser's process tree), and prints a
// table and a verdict: growth after warm-up (the last sample against the
// one at -every calls) at most 10%, goroutines and fds back to the start.
//
//	go run ./e2e/cmd/soak -lyrad bin/lyrad [-calls 10000] [-every 1000] [-tabs 100] [-clients 3]
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/e2e/benchkit"
	"github.com/lyrad/lyrad/transport"
)

type options struct {
	bin                         string
	calls, every, tabs, clients int
	reconnect                   int
	settle                      time.Duration
	seed                        uint64
	verbose                     bool
	maxGrowth                   float64
	goroutineSlack, fdSlack     int
}

func main() {
	var o options
	flag.StringVar(&o.bin, "lyrad", "bin/lyrad", "lyrad binary")
	flag.IntVar(&o.calls, "calls", 10000, "tool calls in all")
	flag.IntVar(&o.every, "every", 1000, "calls between samples (the tabs grow to -tabs and back to one in each stretch)")
	flag.IntVar(&o.tabs, "tabs", 100, "most tabs open at once")
	flag.IntVar(&o.clients, "clients", 3, "MCP clients taking turns")
	flag.IntVar(&o.reconnect, "reconnect", 100, "calls a client makes before it disconnects and the next one resumes")
	flag.DurationVar(&o.settle, "settle", 3*time.Second, "quiet time before each sample (release graces, timers)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the call mix")
	flag.BoolVar(&o.verbose, "v", false, "print each unexpected answer")
	flag.Float64Var(&o.maxGrowth, "max-growth", 10, "daemon RSS growth after warm-up allowed, percent")
	flag.IntVar(&o.goroutineSlack, "goroutine-slack", 0, "goroutines above the start allowed at the end")
	flag.IntVar(&o.fdSlack, "fd-slack", 0, "open fds above the start allowed at the end")
	flag.Parse()
	ok, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(3)
	}
}

// sample is one row of the table.
type sample struct {
	label           string
	calls           int
	elapsed         time.Duration
	rss, chromeRSS  float64
	heap            float64
	goroutines, fds int
	chromeProcs     int
	tabs            int
	peakTabs        int // the most tabs open since the last sample
	median, p90     time.Duration
}

func run(o options) (bool, error) {
	sites, err := serveSites()
	if err != nil {
		return false, err
	}
	dataDir, err := os.MkdirTemp("", "soak")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dataDir)
	d, err := benchkit.StartDaemon(o.bin, dataDir,
		"LYRA_BROWSER_CONSENT_CHANNEL=legacy", // asked again after each resume: confirm=true answers
		"LYRA_BROWSER_RECONNECT_GRACE=60",
		"LYRA_BROWSER_CAPTURE_DIR="+filepath.Join(dataDir, "captures"))
	if err != nil {
		return false, err
	}
	defer d.Stop()
	s := &soak{o: o, d: d, admin: datadir.New(dataDir).AdminSocket(), sites: sites,
		rng: rand.New(rand.NewPCG(o.seed, 7)), statuses: map[string]int{}, tools: map[string]int{}}
	defer func() {
		if s.cs != nil {
			s.cs.Close()
		}
	}()
	if err := s.connect(); err != nil {
		return false, err
	}
	if _, err := benchkit.CallOK(s.cs, "open_browser", nil); err != nil {
		return false, err
	}
	if _, err := s.call("navigate", map[string]any{"url": sites[0] + "/p/0", "confirm": true}); err != nil {
		return false, err
	}
	s.start = time.Now()
	var rows []sample
	first, err := s.sample("start", 0)
	if err != nil {
		return false, err
	}
	rows = append(rows, first)
	fmt.Printf("soak: %d calls, %d tabs at most, %d clients reconnecting every %d calls, sampled every %d (settle %v)\n",
		o.calls, o.tabs, o.clients, o.reconnect, o.every, o.settle)
	printHeader()
	printRow(first)
	for next := o.every; s.n < o.calls; {
		if err := s.step(); err != nil {
			return false, fmt.Errorf("after %d calls: %w", s.n, err)
		}
		if s.n >= next || s.n >= o.calls {
			next += o.every
			if err := s.shrinkTo(1); err != nil {
				return false, err
			}
			r, err := s.sample(strconv.Itoa(s.n), s.n)
			if err != nil {
				return false, err
			}
			rows = append(rows, r)
			printRow(r)
		}
	}
	// The end: the last client disconnects and one more resumes its turn.
	s.cs.Close()
	s.cs = nil
	if err := s.connect(); err != nil {
		return false, err
	}
	if _, err := s.call("tabs", map[string]any{"action": "list"}); err != nil {
		return false, err
	}
	end, err := s.sample("end", s.n)
	if err != nil {
		return false, err
	}
	rows = append(rows, end)
	printRow(end)
	return s.verdict(rows), nil
}

func printHeader() {
	fmt.Printf("%-6s %6s %8s %9s %9s %10s %6s %5s %5s %10s %6s %9s %9s\n",
		"at", "calls", "elapsed", "rss_mb", "heap_mb", "goroutines", "fds", "tabs", "peak", "chrome_mb", "procs", "median", "p90")
}

func printRow(r sample) {
	fmt.Printf("%-6s %6d %8s %9.1f %9.2f %10d %6d %5d %5d %10.0f %6d %9s %9s\n",
		r.label, r.calls, r.elapsed.Round(time.Second), r.rss, r.heap, r.goroutines, r.fds, r.tabs, r.peakTabs, r.chromeRSS, r.chromeProcs,
		r.median.Round(100*time.Microsecond), r.p90.Round(100*time.Microsecond))
}

func (s *soak) verdict(rows []sample) bool {
	o := s.o
	start, end := rows[0], rows[len(rows)-1]
	ok := true
	fmt.Printf("calls by tool: %s\n", counts(s.tools))
	fmt.Printf("answers by status: %s; transport errors %d; reconnects %d; took %v\n",
		counts(s.statuses), s.transportErrs, s.reconnects, time.Since(s.start).Round(time.Second))
	var warm *sample
	for i := range rows {
		if rows[i].calls >= o.every && rows[i].label != "start" {
			warm = &rows[i]
			break
		}
	}
	if warm != nil && warm != &rows[len(rows)-1] {
		growth := 100 * (end.rss - warm.rss) / warm.rss
		heapGrowth := 100 * (end.heap - warm.heap) / warm.heap
		chromeGrowth := 100 * (end.chromeRSS - warm.chromeRSS) / warm.chromeRSS
		pass := growth <= o.maxGrowth
		ok = ok && pass
		fmt.Printf("daemon RSS after warm-up: %.1f MB at %d calls, %.1f MB at the end: %+.1f%% (limit %.0f%%) %s; Go heap %+.1f%%; Chrome RSS %+.1f%%\n",
			warm.rss, warm.calls, end.rss, growth, o.maxGrowth, passFail(pass), heapGrowth, chromeGrowth)
	}
	gPass := end.goroutines <= start.goroutines+o.goroutineSlack
	fPass := end.fds <= start.fds+o.fdSlack
	ok = ok && gPass && fPass
	fmt.Printf("goroutines %d at the start, %d at the end %s; fds %d at the start, %d at the end %s\n",
		start.goroutines, end.goroutines, passFail(gPass), start.fds, end.fds, passFail(fPass))
	if bad := s.n - s.statuses["ok"] - s.statuses["blocked_by_policy"]; bad > s.n/100 {
		ok = false
		fmt.Printf("%d of %d calls answered neither ok nor blocked_by_policy (more than 1%%) FAIL\n", bad, s.n)
	}
	fmt.Printf("verdict: %s\n", map[bool]string{true: "PASS", false: "FAIL"}[ok])
	return ok
}

func passFail(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}

func counts(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var parts []string
	for _, k := range ks {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// soak is the run's state: the client connected now, the tabs it believes
// open, the counts.
type soak struct {
	o            options
	d            *benchkit.Daemon
	admin        string
	sites        []string
	rng          *rand.Rand
	cs           *mcp.ClientSession
	client       int // which of the -clients is connected
	sinceConnect int

	n             int // calls made
	tabCount      int
	peakTabs      int
	statuses      map[string]int
	tools         map[string]int
	transportErrs int
	reconnects    int
	start         time.Time
	durs          []time.Duration // since the last sample
}

func (s *soak) connect() error {
	cs, err := s.d.Connect("soak") // one name for every client: a reconnect resumes
	if err != nil {
		return err
	}
	s.cs = cs
	s.sinceConnect = 0
	return nil
}

// call makes one counted tool call and answers its envelope; an answer
// other than ok is counted and is not an error, a failed transport is.
func (s *soak) call(name string, args map[string]any) (map[string]any, error) {
	s.n++
	s.sinceConnect++
	s.tools[name]++
	t0 := time.Now()
	env, err := benchkit.CallOK(s.cs, name, args)
	s.durs = append(s.durs, time.Since(t0))
	if env == nil && err != nil {
		s.transportErrs++
		s.statuses["transport_error"]++
		if s.transportErrs > 20 {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "soak: call %d: %v (reconnecting)\n", s.n, err)
		s.cs.Close()
		return nil, s.connect()
	}
	st, _ := env["status"].(string)
	s.statuses[st]++
	if st != "ok" && st != "blocked_by_policy" && s.o.verbose {
		fmt.Fprintf(os.Stderr, "soak: call %d %s %v: %v\n", s.n, name, args, err)
	}
	if tc, ok := env["tab_count"].(float64); ok {
		s.tabCount = int(tc)
		s.peakTabs = max(s.peakTabs, s.tabCount)
	}
	return env, nil
}

// step makes one call of the mix. In each stretch of -every calls the
// tabs grow to -tabs over the first half and shrink back to one over the
// second.
func (s *soak) step() error {
	if s.sinceConnect >= s.o.reconnect {
		s.cs.Close()
		s.client = (s.client + 1) % s.o.clients
		s.reconnects++
		if err := s.connect(); err != nil {
			return err
		}
	}
	pos := s.n % s.o.every
	half := s.o.every / 2
	// Space the tab openings (and closings) over their half.
	gap := max(1, (half-s.o.tabs/10)/max(1, s.o.tabs))
	switch {
	case pos < half && pos%gap == 0 && s.tabCount < s.o.tabs:
		return s.openTab()
	case pos >= half && pos%gap == 0 && s.tabCount > 1:
		return s.closeTab()
	case pos == s.o.every-1 && s.tabCount > 1:
		return s.closeTab()
	}
	site := s.sites[s.rng.IntN(len(s.sites))]
	var err error
	switch r := s.rng.IntN(100); {
	case r < 15:
		_, err = s.call("navigate", map[string]any{"url": fmt.Sprintf("%s/p/%d", site, s.rng.IntN(50)), "confirm": true})
	case r < 30:
		_, err = s.call("read_page", map[string]any{"mode": "tree"})
	case r < 38:
		_, err = s.call("read_page", map[string]any{"mode": "text", "links": true})
	case r < 55:
		_, err = s.call("click", map[string]any{"selector": "#press", "confirm": true})
	case r < 70:
		_, err = s.call("type_text", map[string]any{"selector": "#name", "text": fmt.Sprintf("soak %d", s.n), "confirm": true})
	case r < 76:
		_, err = s.call("click", map[string]any{"selector": "#next", "confirm": true}) // same-origin navigation
	case r < 79:
		_, err = s.call("click", map[string]any{"selector": "#away", "confirm": true}) // another site: blocked unless granted
	case r < 84:
		_, err = s.call("tabs", map[string]any{"action": "list"})
	case r < 96:
		if s.tabCount > 1 {
			_, err = s.call("tabs", map[string]any{"action": "switch", "index": s.rng.IntN(s.tabCount), "confirm": true})
		} else {
			_, err = s.call("read_page", map[string]any{"mode": "tree"})
		}
	default:
		_, err = s.call("navigate", map[string]any{"url": site + "/form", "confirm": true})
	}
	return err
}

// openTab opens a tab the way pages do: a target=_blank link or a button
// calling window.open.
func (s *soak) openTab() error {
	sel := "#newtab"
	if s.rng.IntN(2) == 0 {
		sel = "#popup"
	}
	before := s.tabCount
	env, err := s.call("click", map[string]any{"selector": sel, "confirm": true})
	if err != nil || env == nil {
		return err
	}
	if env["status"] != "ok" || s.tabCount <= before {
		// The page has no such control (a form page, a blocked load):
		// come back to a page that does.
		_, err = s.call("navigate", map[string]any{"url": s.sites[s.rng.IntN(len(s.sites))] + "/p/1", "confirm": true})
	}
	return err
}

func (s *soak) closeTab() error {
	_, err := s.call("tabs", map[string]any{"action": "close", "index": s.rng.IntN(s.tabCount), "confirm": true})
	return err
}

// shrinkTo closes tabs until n are left (the end of a run that does not
// stop on a stretch boundary).
func (s *soak) shrinkTo(n int) error {
	for i := 0; s.tabCount > n && i < 2*s.o.tabs; i++ {
		if err := s.closeTab(); err != nil {
			return err
		}
	}
	return nil
}

func (s *soak) sample(label string, calls int) (sample, error) {
	time.Sleep(s.o.settle)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := transport.AskAdmin(ctx, s.admin, map[string]any{"verb": "status", "gc": true})
	if err != nil {
		return sample{}, fmt.Errorf("admin status: %w", err)
	}
	num := func(k string) float64 { f, _ := st[k].(float64); return f }
	pid := s.d.Cmd.Process.Pid
	chrome, procs := treeRSS(pid)
	tabs, _ := st["tabs"].([]any)
	r := sample{label: label, calls: calls, elapsed: time.Since(s.start), rss: benchkit.RSS(pid), chromeRSS: chrome, chromeProcs: procs,
		heap: num("heap_bytes") / (1 << 20), goroutines: int(num("goroutines")), fds: int(num("fds")), tabs: len(tabs),
		median: benchkit.Median(s.durs), p90: benchkit.Pct(s.durs, 0.9), peakTabs: max(s.peakTabs, len(tabs))}
	s.durs = s.durs[:0]
	s.peakTabs = 0
	return r, nil
}

// treeRSS sums VmRSS (MB) over the descendants of pid: the browser and
// every process it started.
func treeRSS(pid int) (float64, int) {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var total float64
	n := 0
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			if r := benchkit.RSS(c); r > 0 {
				total += r
				n++
			}
			walk(c)
		}
	}
	walk(pid)
	return total, n
}

// serveSites serves the soak's pages on three loopback sites:
// 127.0.0.1, localhost (the same address, another site) and 127.0.0.2.
func serveSites() ([]string, error) {
	ln1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ln2, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		return nil, fmt.Errorf("127.0.0.2 (loopback beyond 127.0.0.1): %w", err)
	}
	port1 := ln1.Addr().(*net.TCPAddr).Port
	sites := []string{
		"http://127.0.0.1:" + strconv.Itoa(port1),
		"http://localhost:" + strconv.Itoa(port1),
		"http://" + ln2.Addr().String(),
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		self := "http://" + r.Host
		other := sites[0]
		for _, s := range sites {
			if s != self {
				other = s
				break
			}
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case r.URL.Path == "/form":
			fmt.Fprintf(w, formPage, r.Host, other)
		case strings.HasPrefix(r.URL.Path, "/p/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/p/"))
			var items strings.Builder
			for i := 0; i < 5+n%20; i++ {
				fmt.Fprintf(&items, "<li><a href=/p/%d>Item %d of page %d</a> <span>%s</span></li>\n", (n+i+1)%50, i, n, strings.Repeat("lorem ipsum ", 1+i%4))
			}
			fmt.Fprintf(w, page, n, r.Host, n, (n+1)%50, other, (n+7)%50, (n+3)%50, items.String())
		default:
			http.NotFound(w, r)
		}
	})
	go http.Serve(ln1, h)
	go http.Serve(ln2, h)
	return sites, nil
}

const page = `<!doctype html><title>soak page %d on %s</title>
<h1>Page %d</h1>
<nav><a id=next href=/p/%d>Next page</a> <a id=away href="%s/p/1">Another site</a>
<a id=newtab href=/p/%d target=_blank>Open in a new tab</a></nav>
<button id=popup onclick="window.open('/p/%d')">Pop up</button>
<label>Name <input id=name name=name></label>
<button id=press onclick="this.dataset.n = (+this.dataset.n || 0) + 1; document.getElementById('out').textContent = this.dataset.n">Press me</button>
<p id=out></p>
<ul>
%s</ul>`

const formPage = `<!doctype html><title>soak form on %s</title>
<h1>A form</h1>
<nav><a id=away href="%s/p/1">Another site</a> <a id=newtab href=/p/4 target=_blank>Open in a new tab</a></nav>
<button id=popup onclick="window.open('/p/5')">Pop up</button>
<form action=/p/2 method=get>
<label>Name <input id=name name=name></label>
<label>Email <input name=email type=email></label>
<label>Topic <select name=topic><option>One<option>Two</select></label>
<textarea name=body></textarea>
<button id=press type=button onclick="this.dataset.n = (+this.dataset.n || 0) + 1">Press me</button>
<a id=next href=/p/3>Next page</a>
<button type=submit>Send</button>
</form>`
