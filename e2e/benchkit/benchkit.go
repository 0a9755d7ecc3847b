// Package benchkit is what lyrad's benchmark commands share: a `lyrad serve`
// daemon on a temporary data dir, an MCP client for it, and the statistics.
package benchkit

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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

// Daemon is `lyrad serve --http` under measurement.
type Daemon struct {
	Cmd   *exec.Cmd
	url   string
	token string
}

var (
	urlRe   = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
	tokenRe = regexp.MustCompile(`Authorization: Bearer ([0-9a-f]+)`)
)

// StartDaemon runs bin as a headless daemon on dataDir with approval off
// (a benchmark measures lyrad, not a person answering prompts) and waits
// until it says where it listens. env adds settings (KEY=value).
func StartDaemon(bin, dataDir string, env ...string) (*Daemon, error) {
	cmd := exec.Command(bin, "serve", "--http", "--port", "0", "--headless", "--log-level", "warn")
	cmd.Env = append(append(os.Environ(), "LYRA_BROWSER_DATA_DIR="+dataDir, "LYRA_BROWSER_CONSENT_CHANNEL=off"), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	d := &Daemon{Cmd: cmd}
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
	// LYRAD_BENCH_LOG=1 shows the daemon's warnings and errors.
	show := os.Getenv("LYRAD_BENCH_LOG") != ""
	go func() {
		for sc.Scan() {
			if show {
				fmt.Fprintln(os.Stderr, sc.Text())
			}
		}
	}()
	return d, nil
}

// Stop ends the daemon as a signal would.
func (d *Daemon) Stop() {
	d.Cmd.Process.Signal(os.Interrupt)
	d.Cmd.Wait()
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	// The proof a reconnecting client gives over HTTP: a client of the
	// bench is the same program as the one before it.
	r.Header.Set("Lyra-Resume-Token", "benchkit-resume-"+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// Connect opens an MCP client session over streamable HTTP.
func (d *Daemon) Connect(name string) (*mcp.ClientSession, error) {
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: d.url, HTTPClient: &http.Client{Transport: bearer{d.token}}}, nil)
}

// CallOK calls a tool and returns its envelope, or an error unless its
// status is ok.
func CallOK(cs *mcp.ClientSession, name string, args map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env map[string]any
	json.Unmarshal(b, &env)
	if env["status"] != "ok" {
		return env, fmt.Errorf("%s: %s", name, b)
	}
	return env, nil
}

// RSS is a process's resident set in MB, from /proc (-1 when unknown).
func RSS(pid int) float64 {
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

// CPU is the processor time a process has used so far, user and system,
// from /proc (0 when unknown); it counts in clock ticks (10 ms on Linux).
func CPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64) // field 14
	stime, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// Pct is the p-th quantile (0..1) of ds; 0 for none.
func Pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(p*float64(len(s)-1)+0.5)]
}

// Median is Pct(ds, 0.5).
func Median(ds []time.Duration) time.Duration { return Pct(ds, 0.5) }
