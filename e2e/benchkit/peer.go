package benchkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// PeerTimeout bounds a peer's start and each of its tool calls.
const PeerTimeout = 60 * time.Second

// Peer is an MCP server run over stdio beside lyrad (Playwright MCP,
// chrome-devtools-mcp, or `lyrad stdio`): in a process group of its own,
// with a temporary directory of its own (TMPDIR, so an --isolated profile
// lands there too), every call bounded by PeerTimeout, and everything it
// started killed at Close.
type Peer struct {
	Name string // e.g. "chrome-devtools-mcp 1.11.0"
	CS   *mcp.ClientSession
	Tmp  string // removed at Close

	cmd *exec.Cmd
}

// StartPeer starts cmd (its TMPDIR set to tmp, which the Peer owns) and
// opens an MCP session with it.
func StartPeer(name string, cmd *exec.Cmd, tmp string) (*Peer, error) {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	ownGroup(cmd)
	p := &Peer{Name: name, Tmp: tmp, cmd: cmd}
	ctx, cancel := context.WithTimeout(context.Background(), PeerTimeout)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "lyrad-bench", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}, nil)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p.CS = cs
	return p, nil
}

// Call calls a tool and returns the text of its answer; an error result
// is an error.
func (p *Peer) Call(name string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), PeerTimeout)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := p.CS.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	if res.IsError {
		return sb.String(), fmt.Errorf("%s: %s", name, sb.String())
	}
	return sb.String(), nil
}

// Close ends the session (stdin closed, then SIGTERM, then SIGKILL, each
// after 3 s), kills what is left in the peer's process group and any
// process still running on a path under its temporary directory (a
// browser launched detached, in a group of its own), then removes that
// directory.
func (p *Peer) Close() {
	if p.CS != nil {
		p.CS.Close()
	}
	if p.cmd.Process != nil {
		killGroup(p.cmd.Process.Pid)
	}
	killUnder(p.Tmp)
	os.RemoveAll(p.Tmp)
}

// killUnder kills, by pid, every process whose command line names a path
// under dir.
func killUnder(dir string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(b, []byte(dir+"/")) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil && pid != os.Getpid() {
			kill(pid)
		}
	}
}

// PlaywrightScript is @playwright/mcp's cli.js under dir, where `npm
// install` ran (node_modules inside) or the package itself; "" when it is
// not there.
func PlaywrightScript(dir string) string {
	return script(dir, filepath.Join("@playwright", "mcp"), "cli.js")
}

// ChromeDevtoolsScript is chrome-devtools-mcp's entry script under dir,
// like PlaywrightScript.
func ChromeDevtoolsScript(dir string) string {
	return script(dir, "chrome-devtools-mcp", filepath.Join("build", "src", "bin", "chrome-devtools-mcp.js"))
}

// version is the version in the package.json nearest above script.
func version(script string) string {
	for d := filepath.Dir(script); d != filepath.Dir(d); d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "package.json"))
		if err != nil {
			continue
		}
		var p struct{ Version string }
		json.Unmarshal(b, &p)
		return p.Version
	}
	return "(version unknown)"
}

func script(dir, pkg, file string) string {
	if dir == "" {
		return ""
	}
	for _, p := range []string{filepath.Join(dir, "node_modules", pkg, file), filepath.Join(dir, file)} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// tempDir is a peer's own temporary directory.
func tempDir(prefix string) (string, error) {
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", err
	}
	// Symlinks resolved, so that killUnder sees the path Chrome is given.
	return filepath.EvalSymlinks(d)
}

// StartPlaywright runs Playwright MCP's cli.js headless on browser, with
// an isolated profile (in memory) and its output in its temporary
// directory.
func StartPlaywright(cli, browser string) (*Peer, error) {
	tmp, err := tempDir("bench-pw")
	if err != nil {
		return nil, err
	}
	args := []string{cli, "--headless", "--isolated", "--executable-path", browser, "--output-dir", filepath.Join(tmp, "out")}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	return StartPeer("Playwright MCP "+version(cli), exec.Command("node", args...), tmp)
}

// StartChromeDevtools runs chrome-devtools-mcp's script headless on
// browser with an isolated profile (a temporary one, in the peer's
// directory), no usage statistics, no update check, no CrUX look-ups, and
// Chrome's background networking and component updates off.
func StartChromeDevtools(script, browser string) (*Peer, error) {
	tmp, err := tempDir("bench-cdm")
	if err != nil {
		return nil, err
	}
	args := []string{script, "--headless", "--isolated", "--executablePath", browser,
		"--no-usage-statistics", "--no-performance-crux",
		"--chromeArg=--disable-background-networking", "--chromeArg=--disable-component-update"}
	if os.Geteuid() == 0 {
		args = append(args, "--chromeArg=--no-sandbox")
	}
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1", "CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS=1")
	return StartPeer("chrome-devtools-mcp "+version(script), cmd, tmp)
}
