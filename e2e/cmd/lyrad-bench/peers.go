package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/lyrad/lyrad/e2e/benchkit"
)

// firstStarts times the first ever start of lyrad and of each peer whose
// directory is given: from the process's start over stdio (as an MCP
// client runs it) to its first navigate to page done (load), on a fresh
// profile each time; the median of k, taking turns so that the machine's
// load falls on all alike. Nothing without a peer.
func firstStarts(bin, pwDir, cdDir, browser, page string, k int) error {
	type server struct {
		start    func() (*benchkit.Peer, error)
		navigate func(p *benchkit.Peer) error
		name     string
		times    []time.Duration
	}
	servers := []*server{{
		start: func() (*benchkit.Peer, error) { return startLyradStdio(bin) },
		navigate: func(p *benchkit.Peer) error {
			_, err := benchkit.CallOK(p.CS, "navigate", map[string]any{"url": page, "wait_until": "load"})
			return err
		},
	}}
	if cli := benchkit.PlaywrightScript(pwDir); cli != "" {
		servers = append(servers, &server{
			start: func() (*benchkit.Peer, error) { return benchkit.StartPlaywright(cli, browser) },
			navigate: func(p *benchkit.Peer) error {
				_, err := p.Call("browser_navigate", map[string]any{"url": page})
				return err
			},
		})
	}
	if script := benchkit.ChromeDevtoolsScript(cdDir); script != "" {
		servers = append(servers, &server{
			start: func() (*benchkit.Peer, error) { return benchkit.StartChromeDevtools(script, browser) },
			// One call that launches the browser and loads the page; its
			// other tools need the page id it answers.
			navigate: func(p *benchkit.Peer) error {
				_, err := p.Call("new_page", map[string]any{"url": page})
				return err
			},
		})
	}
	if len(servers) == 1 {
		fmt.Println("first ever start beside the peers: no -playwright-mcp or -chrome-devtools-mcp directory with the package in it; not measured")
		return nil
	}
	for i := 0; i < k; i++ {
		for _, s := range servers {
			start := time.Now()
			p, err := s.start()
			if err != nil {
				return err
			}
			s.name = p.Name
			err = s.navigate(p)
			took := time.Since(start)
			p.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			s.times = append(s.times, took)
		}
	}
	for _, s := range servers {
		fmt.Printf("first ever start, %s (process start over stdio -> first navigate done, load, fresh profile), median of %d: %v  (min %v, max %v)\n",
			s.name, k, median(s.times).Round(time.Millisecond), minD(s.times).Round(time.Millisecond), maxD(s.times).Round(time.Millisecond))
	}
	return nil
}

// startLyradStdio runs `lyrad stdio` headless on a new data dir, as a peer
// is run: approval off, since a benchmark asks nobody.
func startLyradStdio(bin string) (*benchkit.Peer, error) {
	tmp, err := os.MkdirTemp("", "lyrad-bench-first")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "stdio")
	cmd.Env = append(os.Environ(), "LYRA_BROWSER_DATA_DIR="+filepath.Join(tmp, "data"), "LYRA_BROWSER_HEADLESS=true",
		"LYRA_BROWSER_LOG_LEVEL=warn", "LYRA_BROWSER_CONSENT_CHANNEL=off")
	cmd.Stderr = os.Stderr
	return benchkit.StartPeer("lyrad", cmd, tmp)
}
