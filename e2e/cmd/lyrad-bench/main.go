// Command lyrad-bench measures lyrad through MCP against real Chromium:
// cold start (open_browser to the first navigate done, headless) beside
// plain Chrome's (launched with the same flags on a used profile, driven
// over CDP by this program), the median navigate to a small loopback page,
// and the daemon's own RSS without Chrome. With the peers' directories it
// also times each one's first ever start, lyrad's too: process start to the
// first navigate done, on a fresh profile.
//
//	go run ./e2e/cmd/lyrad-bench -lyrad bin/lyrad [-n 50] [-cold 5] \
//	    [-playwright-mcp DIR] [-chrome-devtools-mcp DIR] [-first 3]
//
// DIR is where `npm install @playwright/mcp chrome-devtools-mcp` ran
// (node_modules inside); PLAYWRIGHT_MCP_DIR and CHROME_DEVTOOLS_MCP_DIR
// work too.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/e2e/benchkit"
)

func main() {
	bin := flag.String("lyrad", "bin/lyrad", "lyrad binary")
	n := flag.Int("n", 50, "navigations to time")
	cold := flag.Int("cold", 5, "cold starts to time")
	pw := flag.String("playwright-mcp", os.Getenv("PLAYWRIGHT_MCP_DIR"), "directory where @playwright/mcp is installed (node_modules inside)")
	cd := flag.String("chrome-devtools-mcp", os.Getenv("CHROME_DEVTOOLS_MCP_DIR"), "directory where chrome-devtools-mcp is installed (node_modules inside)")
	browser := flag.String("chromium", "/usr/bin/chromium", "browser the peers drive")
	first := flag.Int("first", 3, "first ever starts to time for each server (with a peer directory given)")
	interleave := flag.Int("interleave", 0, "rounds of n navigations each, lyrad and plain CDP in turn")
	sends := flag.Bool("sends", true, "also time 200 POST fetches (sends recorded and judged)")
	flag.Parse()
	page, err := serve()
	if err == nil {
		err = run(*bin, page, *n, *cold, *interleave, *sends)
	}
	if err == nil {
		err = firstStarts(*bin, *pw, *cd, *browser, page, *first)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lyrad-bench:", err)
		os.Exit(1)
	}
}

// serve serves the benchmark's pages on loopback and returns the root URL.
func serve() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	page := "http://" + ln.Addr().String() + "/"
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// /hop/N/...: a redirect chain of N same-origin hops, each one a
		// request the guard holds.
		if rest, ok := strings.CutPrefix(r.URL.Path, "/hop/"); ok {
			n, _ := strconv.Atoi(strings.SplitN(rest, "/", 2)[0])
			if n > 0 {
				http.Redirect(w, r, fmt.Sprintf("/hop/%d/%s", n-1, strings.SplitN(rest, "/", 2)[1]), http.StatusFound)
				return
			}
		}
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.URL.Path == "/sends" {
			// 200 same-origin POST fetches, one after the other; the page
			// puts how long they took in its title.
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>sending</title><script>
(async () => {
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) await fetch("/api/" + i, {method: "POST", body: "n=" + i});
  document.title = "sent " + (performance.now() - t0).toFixed(1);
})();
</script>`)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<!doctype html><title>bench</title><h1>small page</h1><p>%s</p><a href='/x'>x</a>", r.URL.Path)
	}))
	return page, nil
}

func run(bin, page string, n, cold, rounds int, sends bool) error {
	dataDir, err := os.MkdirTemp("", "lyrad-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)

	d, err := benchkit.StartDaemon(bin, dataDir)
	if err != nil {
		return err
	}
	defer d.Stop()
	rssIdle := benchkit.RSS(d.Cmd.Process.Pid)

	cs, err := d.Connect("lyrad-bench")
	if err != nil {
		return err
	}
	defer cs.Close()

	// Cold starts. The first one ever on a data dir also makes the
	// profile and works out the headless user agent and client hints; it
	// is reported apart. Each
	// later one is followed by plain Chrome's on a profile of its own, made
	// by one untimed start first.
	plainDir, err := os.MkdirTemp("", "lyrad-bench-plain-cold")
	if err != nil {
		return err
	}
	defer os.RemoveAll(plainDir)
	// Plain Chrome's first start on a new profile: what lyrad's first
	// ever start is compared with.
	plainFirst, err := plainColdStart(plainDir, page)
	if err != nil {
		return fmt.Errorf("plain Chrome cold start: %w", err)
	}
	var colds, plainColds []time.Duration
	for i := 0; i <= cold; i++ {
		start := time.Now()
		if err := callOK(cs, "open_browser", nil); err != nil {
			return err
		}
		if err := callOK(cs, "navigate", map[string]any{"url": page, "wait_until": "load"}); err != nil {
			return err
		}
		took := time.Since(start)
		if i == 0 {
			fmt.Printf("cold start, first ever on a data dir (a new profile; the headless UA and hints worked out from --version): %v; plain Chrome's first start on a new profile (lyrad's flags, CDP attach, navigate until load): %v\n",
				took.Round(time.Millisecond), plainFirst.Round(time.Millisecond))
		} else {
			colds = append(colds, took)
			plain, err := plainColdStart(plainDir, page)
			if err != nil {
				return fmt.Errorf("plain Chrome cold start: %w", err)
			}
			plainColds = append(plainColds, plain)
		}
		if i < cold {
			if err := callOK(cs, "close_browser", nil); err != nil {
				return err
			}
		}
	}
	fmt.Printf("cold start (open_browser -> first navigate done, load, headless), median of %d: %v  (min %v, max %v)\n",
		len(colds), median(colds).Round(time.Millisecond), minD(colds).Round(time.Millisecond), maxD(colds).Round(time.Millisecond))
	fmt.Printf("plain Chrome cold start (lyrad's launch flags, used profile, CDP attach, navigate until load; no lyrad), median of %d: %v  (min %v, max %v)\n",
		len(plainColds), median(plainColds).Round(time.Millisecond), minD(plainColds).Round(time.Millisecond), maxD(plainColds).Round(time.Millisecond))
	// The minima too: on a loaded machine they are the steadier estimate.
	share, minShare := median(colds)-median(plainColds), minD(colds)-minD(plainColds)
	fmt.Printf("lyrad's own share of a cold start: medians %v - %v = %v (%.0f%% of lyrad's); minima %v - %v = %v\n",
		median(colds).Round(time.Millisecond), median(plainColds).Round(time.Millisecond), share.Round(time.Millisecond), 100*float64(share)/float64(median(colds)),
		minD(colds).Round(time.Millisecond), minD(plainColds).Round(time.Millisecond), minShare.Round(time.Millisecond))

	pid := d.Cmd.Process.Pid
	cpu0 := benchkit.CPU(pid)
	var navs []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := callOK(cs, "navigate", map[string]any{"url": page + strconv.Itoa(i)}); err != nil {
			return err
		}
		navs = append(navs, time.Since(start))
	}
	fmt.Printf("navigate to a small loopback page (domcontentloaded), median of %d: %v  (p90 %v)\n",
		n, median(navs).Round(time.Microsecond*100), pct(navs, 0.9).Round(time.Microsecond*100))
	cpu1 := benchkit.CPU(pid)
	var chains []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := callOK(cs, "navigate", map[string]any{"url": fmt.Sprintf("%shop/5/c%d", page, i)}); err != nil {
			return err
		}
		chains = append(chains, time.Since(start))
	}
	cpu2 := benchkit.CPU(pid)
	fmt.Printf("navigate through a 5-hop redirect chain, median of %d: %v\n", n, median(chains).Round(time.Microsecond*100))
	fmt.Printf("lyrad daemon CPU (user+system, without Chrome) per navigate: page %.1f ms, 5-hop chain %.1f ms\n",
		float64((cpu1-cpu0).Microseconds())/1000/float64(n), float64((cpu2-cpu1).Microseconds())/1000/float64(n))
	plain, plainChains, err := plainNavigate(page, n, false)
	if err != nil {
		return fmt.Errorf("plain CDP navigate: %w", err)
	}
	fmt.Printf("the same over plain CDP (this program, no lyrad, no interception), median of %d: page %v, 5-hop chain %v\n",
		n, median(plain).Round(time.Microsecond*100), median(plainChains).Round(time.Microsecond*100))
	held, heldChains, err := plainNavigate(page, n, true)
	if err != nil {
		return fmt.Errorf("plain CDP navigate with interception: %w", err)
	}
	fmt.Printf("plain CDP doing what the guard asks of Chrome (Network, worker bypass, Fetch, continue at once): page %v, 5-hop chain %v\n",
		median(held).Round(time.Microsecond*100), median(heldChains).Round(time.Microsecond*100))
	fmt.Printf("guard cost: lyrad/plain = %.2f for a page, %.2f for a 5-hop chain (target <= 1.10); lyrad/plain-with-interception = %.2f, %.2f\n",
		float64(median(navs))/float64(median(plain)), float64(median(chains))/float64(median(plainChains)),
		float64(median(navs))/float64(median(held)), float64(median(chains))/float64(median(heldChains)))
	if rounds > 0 {
		if err := interleaved(cs, page, n, rounds); err != nil {
			return fmt.Errorf("interleaved: %w", err)
		}
	}
	if sends {
		if err := sendsCost(bin, page); err != nil {
			return fmt.Errorf("sends: %w", err)
		}
	}
	rssBusy := benchkit.RSS(d.Cmd.Process.Pid)
	if err := callOK(cs, "close_browser", nil); err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	rssAfter := benchkit.RSS(d.Cmd.Process.Pid)
	fmt.Printf("lyrad daemon RSS (without Chrome): idle at start %.1f MB, while driving %.1f MB, after close %.1f MB\n",
		rssIdle, rssBusy, rssAfter)
	return nil
}

// interleaved runs rounds of n navigations to a page and n through a 5-hop
// chain, each made in turn by lyrad and by three plain CDP drivers, each on
// a browser of its own: with interception (the baseline), without, and with
// document responses held too (what the download guard asks of Chrome
// besides). The order turns through every permutation, so that each driver
// follows each other one equally often and a loaded machine weighs on all
// alike. It prints each round's medians and the medians over all rounds.
func interleaved(cs *mcp.ClientSession, page string, n, rounds int) error {
	drivers := []driver{{name: "lyrad", navigate: func(u string) (time.Duration, error) {
		start := time.Now()
		err := callOK(cs, "navigate", map[string]any{"url": u})
		return time.Since(start), err
	}}}
	for _, m := range []struct {
		name string
		mode plainMode
	}{{"plain-with-interception", plainHeld}, {"plain", plainBare}, {"plain-holding-responses", plainHeldResponses}} {
		p, err := startPlain(m.mode, "")
		if err != nil {
			return err
		}
		defer p.close()
		drivers = append(drivers, driver{m.name, p.navigate})
	}
	orders := permutations(len(drivers))
	all := make([][][]time.Duration, 2) // [page, chain][driver]
	for kind := range all {
		all[kind] = make([][]time.Duration, len(drivers))
	}
	seq := 0
	for r := 0; r < rounds; r++ {
		round := make([][][]time.Duration, 2)
		for kind := range round {
			round[kind] = make([][]time.Duration, len(drivers))
			for i := 0; i < n; i++ {
				path := fmt.Sprintf("i%d", seq)
				if kind == 1 {
					path = fmt.Sprintf("hop/5/i%d", seq)
				}
				for _, d := range orders[seq%len(orders)] {
					took, err := drivers[d].navigate(page + path)
					if err != nil {
						return fmt.Errorf("%s: %w", drivers[d].name, err)
					}
					round[kind][d] = append(round[kind][d], took)
					all[kind][d] = append(all[kind][d], took)
				}
				seq++
			}
		}
		fmt.Printf("interleaved round %d of %d: %s\n", r+1, rounds, medians(drivers, round))
	}
	fmt.Printf("interleaved, medians of %d each: %s\n", n*rounds, medians(drivers, all))
	ratio := func(kind, d int) float64 { return float64(median(all[kind][0])) / float64(median(all[kind][d])) }
	fmt.Printf("interleaved guard cost: lyrad/plain-with-interception = %.2f (page), %.2f (5-hop chain); lyrad/plain = %.2f, %.2f; lyrad/plain-holding-responses = %.2f, %.2f\n",
		ratio(0, 1), ratio(1, 1), ratio(0, 2), ratio(1, 2), ratio(0, 3), ratio(1, 3))
	return nil
}

// driver is one way of navigating, timed up to DOMContentLoaded.
type driver struct {
	name     string
	navigate func(u string) (time.Duration, error)
}

// medians formats the medians of each driver for a page and a chain.
func medians(drivers []driver, ds [][][]time.Duration) string {
	var b strings.Builder
	for kind, label := range []string{"page", "5-hop chain"} {
		if kind > 0 {
			b.WriteString("; ")
		}
		b.WriteString(label)
		for d, dr := range drivers {
			fmt.Fprintf(&b, " %s %v", dr.name, median(ds[kind][d]).Round(100*time.Microsecond))
		}
	}
	return b.String()
}

// permutations lists every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 1 {
		return [][]int{{0}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

func callOK(cs *mcp.ClientSession, name string, args map[string]any) error {
	_, err := benchkit.CallOK(cs, name, args)
	return err
}

func median(ds []time.Duration) time.Duration         { return benchkit.Median(ds) }
func pct(ds []time.Duration, p float64) time.Duration { return benchkit.Pct(ds, p) }
func minD(ds []time.Duration) time.Duration           { return benchkit.Pct(ds, 0) }
func maxD(ds []time.Duration) time.Duration           { return benchkit.Pct(ds, 1) }

// sendsCost times a page making 200 same-origin POST fetches in turn, with
// sends recorded (audit, the default) and held and judged (judge), each in a
// daemon of its own.
func sendsCost(bin, page string) error {
	for _, mode := range []string{"audit", "judge"} {
		dataDir, err := os.MkdirTemp("", "lyrad-bench-sends")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dataDir)
		d, err := benchkit.StartDaemon(bin, dataDir, "LYRA_BROWSER_GUARD_SENDS="+mode)
		if err != nil {
			return err
		}
		cs, err := d.Connect("lyrad-bench")
		if err != nil {
			d.Stop()
			return err
		}
		var runs []time.Duration
		for i := 0; i < 7; i++ {
			if err := callOK(cs, "navigate", map[string]any{"url": page + "sends"}); err != nil {
				return err
			}
			var title string
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				got, err := benchkit.CallOK(cs, "get_url", nil)
				if err != nil {
					return err
				}
				title, _ = got["title"].(string)
				if strings.HasPrefix(title, "sent ") {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			ms, err := strconv.ParseFloat(strings.TrimPrefix(title, "sent "), 64)
			if err != nil {
				return fmt.Errorf("the page never finished its sends (title %q)", title)
			}
			runs = append(runs, time.Duration(ms*float64(time.Millisecond)))
		}
		cs.Close()
		d.Stop()
		fmt.Printf("200 same-origin POST fetches in turn, GUARD_SENDS=%s, median of %d: %v (%.2f ms a send)\n",
			mode, len(runs), median(runs).Round(time.Millisecond), float64(median(runs).Microseconds())/1000/200)
	}
	return nil
}
