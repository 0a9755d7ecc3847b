// Command lyrad-bench measures lyrad through MCP against real Chromium:
// cold start (open_browser to the first navigate done, headless), the median
// navigate to a small loopback page, and the daemon's own RSS without Chrome.
//
//	go run ./e2e/cmd/lyrad-bench -lyrad bin/lyrad [-n 50]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	bin := flag.String("lyrad", "bin/lyrad", "lyrad binary")
	n := flag.Int("n", 50, "navigations to time")
	cold := flag.Int("cold", 5, "cold starts to time")
	flag.Parse()
	if err := run(*bin, *n, *cold); err != nil {
		fmt.Fprintln(os.Stderr, "lyrad-bench:", err)
		os.Exit(1)
	}
}

func run(bin string, n, cold int) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
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
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<!doctype html><title>bench</title><h1>small page</h1><p>%s</p><a href='/x'>x</a>", r.URL.Path)
	}))

	dataDir, err := os.MkdirTemp("", "lyrad-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)

	d, err := startDaemon(bin, dataDir)
	if err != nil {
		return err
	}
	defer d.stop()
	rssIdle := rss(d.cmd.Process.Pid)

	cs, err := d.connect()
	if err != nil {
		return err
	}
	defer cs.Close()

	// Cold starts. The first one ever on a data dir also learns the
	// headless user agent (one relaunch); it is reported apart.
	var colds []time.Duration
	for i := 0; i <= cold; i++ {
		start := time.Now()
		if err := callOK(cs, "open_browser", nil); err != nil {
			return err
		}
		if err := callOK(cs, "navigate", map[string]any{"url": page}); err != nil {
			return err
		}
		took := time.Since(start)
		if i == 0 {
			fmt.Printf("cold start, first ever on a data dir (learns the headless UA, one relaunch): %v\n", took.Round(time.Millisecond))
		} else {
			colds = append(colds, took)
		}
		if i < cold {
			if err := callOK(cs, "close_browser", nil); err != nil {
				return err
			}
		}
	}
	fmt.Printf("cold start (open_browser -> first navigate done, headless), median of %d: %v  (min %v, max %v)\n",
		len(colds), median(colds).Round(time.Millisecond), minD(colds).Round(time.Millisecond), maxD(colds).Round(time.Millisecond))

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
	var chains []time.Duration
	for i := 0; i < n; i++ {
		start := time.Now()
		if err := callOK(cs, "navigate", map[string]any{"url": fmt.Sprintf("%shop/5/c%d", page, i)}); err != nil {
			return err
		}
		chains = append(chains, time.Since(start))
	}
	fmt.Printf("navigate through a 5-hop redirect chain, median of %d: %v\n", n, median(chains).Round(time.Microsecond*100))
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
	rssBusy := rss(d.cmd.Process.Pid)
	if err := callOK(cs, "close_browser", nil); err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond)
	rssAfter := rss(d.cmd.Process.Pid)
	fmt.Printf("lyrad daemon RSS (without Chrome): idle at start %.1f MB, while driving %.1f MB, after close %.1f MB\n",
		rssIdle, rssBusy, rssAfter)
	return nil
}

type daemon struct {
	cmd   *exec.Cmd
	url   string
	token string
}

var (
	urlRe   = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	tokenRe = regexp.MustCompile(`Authorization: Bearer ([0-9a-f]+)`)
)

func startDaemon(bin, dataDir string) (*daemon, error) {
	cmd := exec.Command(bin, "serve", "--http", "--port", "0", "--headless", "--log-level", "warn")
	// Approval off: the benchmark measures the guard's judgement, not a
	// person answering prompts.
	cmd.Env = append(os.Environ(), "LYRA_BROWSER_DATA_DIR="+dataDir, "LYRA_BROWSER_CONSENT_CHANNEL=off")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &daemon{cmd: cmd}
	sc := bufio.NewScanner(stderr)
	deadline := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for sc.Scan() {
		if m := urlRe.FindStringSubmatch(sc.Text()); m != nil {
			d.url = m[1]
		}
		if m := tokenRe.FindStringSubmatch(sc.Text()); m != nil {
			d.token = m[1]
			break
		}
	}
	if d.token == "" {
		return nil, fmt.Errorf("lyrad serve did not start")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	return d, nil
}

func (d *daemon) stop() {
	d.cmd.Process.Signal(os.Interrupt)
	d.cmd.Wait()
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func (d *daemon) connect() (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: "lyrad-bench", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.url, HTTPClient: &http.Client{Transport: bearer{d.token}}}, nil)
}

func callOK(cs *mcp.ClientSession, name string, args map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env map[string]any
	json.Unmarshal(b, &env)
	if env["status"] != "ok" {
		return fmt.Errorf("%s: %s", name, b)
	}
	return nil
}

// rss is the process's resident set in MB, from /proc.
func rss(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return -1
}

func sorted(ds []time.Duration) []time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s
}

func median(ds []time.Duration) time.Duration { return pct(ds, 0.5) }

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := sorted(ds)
	return s[int(p*float64(len(s)-1)+0.5)]
}

func minD(ds []time.Duration) time.Duration { return sorted(ds)[0] }
func maxD(ds []time.Duration) time.Duration { s := sorted(ds); return s[len(s)-1] }
