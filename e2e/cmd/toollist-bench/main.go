// Command toollist-bench measures what tools/list costs an agent's context:
// the bytes of the tools/list answer as they arrive on the wire, the tool
// count and the heaviest tools, for lyrad and, when they are installed, for
// Playwright MCP and chrome-devtools-mcp, each started over stdio and asked
// by the go-sdk client. No browser is needed: listing tools launches none.
//
//	go run ./e2e/cmd/toollist-bench -lyrad bin/lyrad \
//	    [-playwright-mcp DIR] [-chrome-devtools-mcp DIR] [-top 5]
//
// DIR is where the npm package was installed (`npm install --prefix DIR
// @playwright/mcp chrome-devtools-mcp`); one directory may hold both.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	bin := flag.String("lyrad", "bin/lyrad", "lyrad binary")
	pw := flag.String("playwright-mcp", os.Getenv("PLAYWRIGHT_MCP_DIR"), "directory where @playwright/mcp is installed (node_modules inside)")
	cd := flag.String("chrome-devtools-mcp", os.Getenv("CHROME_DEVTOOLS_MCP_DIR"), "directory where chrome-devtools-mcp is installed (node_modules inside)")
	top := flag.Int("top", 5, "heaviest tools to name")
	flag.Parse()

	servers := []server{{name: "lyrad", cmd: lyradCmd(*bin), guide: "lyrad://guide"}}
	if *pw != "" {
		servers = append(servers, server{name: "playwright-mcp " + version(*pw, "@playwright/mcp"),
			cmd: nodeCmd(filepath.Join(*pw, "node_modules", "@playwright", "mcp", "cli.js"), "--headless", "--isolated")})
	}
	if *cd != "" {
		servers = append(servers, server{name: "chrome-devtools-mcp " + version(*cd, "chrome-devtools-mcp"),
			cmd: nodeCmd(filepath.Join(*cd, "node_modules", "chrome-devtools-mcp", "build", "src", "bin", "chrome-devtools-mcp.js"), "--headless", "--isolated",
				"--no-usage-statistics", "--no-performance-crux")})
	}
	failed := false
	fmt.Printf("%-28s %6s %9s %9s  heaviest\n", "server", "tools", "bytes", "per tool")
	for _, s := range servers {
		m, err := measure(s.cmd, s.guide)
		if err != nil {
			fmt.Fprintf(os.Stderr, "toollist-bench: %s: %v\n", s.name, err)
			failed = true
			continue
		}
		fmt.Printf("%-28s %6d %9d %9d  %s\n", s.name, m.tools, m.bytes, m.bytes/max(1, m.tools), m.heaviest(*top))
		switch {
		case s.guide == "":
		case m.guideBytes < 0:
			fmt.Printf("%-28s %s: not served\n", "", s.guide)
		default:
			fmt.Printf("%-28s %s: %d bytes, read on demand\n", "", s.guide, m.guideBytes)
		}
	}
	if failed {
		os.Exit(1)
	}
}

type server struct {
	name  string
	cmd   func() *exec.Cmd
	guide string // a resource the descriptions point to, read to show it is served
}

// lyradCmd runs `lyrad stdio` on a data directory of its own, so that it
// serves in-process and no running daemon is disturbed.
func lyradCmd(bin string) func() *exec.Cmd {
	return func() *exec.Cmd {
		dir, err := os.MkdirTemp("", "toollist-bench")
		if err != nil {
			panic(err)
		}
		cmd := exec.Command(bin, "stdio")
		cmd.Env = append(os.Environ(), "LYRA_BROWSER_DATA_DIR="+dir, "LYRA_BROWSER_HEADLESS=true", "LYRA_BROWSER_LOG_LEVEL=warn")
		return cmd
	}
}

func nodeCmd(script string, args ...string) func() *exec.Cmd {
	return func() *exec.Cmd {
		cmd := exec.Command("node", append([]string{script}, args...)...)
		// No update checks or usage statistics from a benchmark.
		cmd.Env = append(os.Environ(), "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1", "CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS=1")
		return cmd
	}
}

// version reads the installed package's version, for the report.
func version(dir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
	if err != nil {
		return "(not found)"
	}
	var p struct{ Version string }
	_ = json.Unmarshal(b, &p)
	return p.Version
}

type measurement struct {
	tools      int
	bytes      int
	guideBytes int
	each       map[string]int // tool name -> bytes of its JSON
}

func (m measurement) heaviest(n int) string {
	var names []string
	for k := range m.each {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return m.each[names[i]] > m.each[names[j]] })
	out := ""
	for i, k := range names {
		if i == n {
			break
		}
		out += fmt.Sprintf("%s %d  ", k, m.each[k])
	}
	return out
}

// measure starts the server, lists its tools (every page) and counts the
// bytes of the answers as the server wrote them.
func measure(mk func() *exec.Cmd, guide string) (measurement, error) {
	cmd := mk()
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return measurement{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return measurement{}, err
	}
	if err := cmd.Start(); err != nil {
		return measurement{}, err
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	rec := &recorder{}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(rec.copyLines(pw, stdout)) }()

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "toollist-bench", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: pr, Writer: stdin}, nil)
	if err != nil {
		return measurement{}, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	m := measurement{each: map[string]int{}}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return measurement{}, fmt.Errorf("tools/list: %w", err)
		}
		b, _ := json.Marshal(t)
		m.each[t.Name] = len(b)
		m.tools++
	}
	if guide != "" {
		// A build from before the guide has none: say so, measure the rest.
		m.guideBytes = -1
		if res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: guide}); err == nil {
			m.guideBytes = 0
			for _, c := range res.Contents {
				m.guideBytes += len(c.Text)
			}
		}
	}
	m.bytes = rec.listBytes()
	if m.bytes == 0 {
		return measurement{}, errors.New("no tools/list answer seen on the wire")
	}
	return m, nil
}

// recorder passes the server's output on line by line and keeps the size
// of every line that answers tools/list.
type recorder struct {
	mu    sync.Mutex
	sizes []int
}

func (r *recorder) copyLines(w io.Writer, rd io.Reader) error {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if isToolList(line) {
			r.mu.Lock()
			r.sizes = append(r.sizes, len(line))
			r.mu.Unlock()
		}
		if _, err := w.Write(append(bytes.Clone(line), '\n')); err != nil {
			return err
		}
	}
	return sc.Err()
}

func (r *recorder) listBytes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.sizes {
		n += s
	}
	return n
}

func isToolList(line []byte) bool {
	var msg struct {
		Result *struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	return json.Unmarshal(line, &msg) == nil && msg.Result != nil && msg.Result.Tools != nil
}
