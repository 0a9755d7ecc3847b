package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lyrad/lyrad/datadir"
)

// selfPath is the real, absolute path of this binary: what a client's
// settings must name to start it. Symlinks are resolved so a settings file
// does not follow a package manager's link to a later version unawares.
func selfPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this binary's path: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Abs(exe)
}

// dataDirArgs names the data directory on a command line, unless it is the
// default one.
func dataDirArgs(dir string) []string {
	if def, err := datadir.Default(); err == nil {
		if abs, err := filepath.Abs(def); err == nil && abs == dir {
			return nil
		}
	}
	return []string{"--data-dir", dir}
}

// hostArgs name the data directory when it is not the default, and the
// --client that was given (its window mode goes with it).
func (o *options) hostArgs() []string {
	args := dataDirArgs(o.dataDir)
	if o.set["client"] {
		args = append(args, "--client", o.client)
	}
	return args
}

func cmdMCPConfig(args []string, stdout, stderr io.Writer) int {
	var useHTTP bool
	var surface string
	o, code := parse("mcp-config", args, stderr, false, func(fs *flag.FlagSet) {
		fs.BoolVar(&useHTTP, "http", false, "the running `lyrad serve --http`'s URL and token instead of a command")
		fs.StringVar(&surface, "surface", surfaceLyra, "playwright: the entry that replaces a Playwright MCP server's (named playwright, with --surface playwright)")
	})
	if o == nil {
		return code
	}
	name := "lyrad"
	switch {
	case surface == surfacePlaywright && useHTTP:
		fmt.Fprintln(stderr, "lyrad mcp-config: --surface playwright is a stdio entry; over HTTP the daemon's own --surface says which tools it serves")
		return 2
	case surface == surfacePlaywright:
		name = "playwright"
	case surface != surfaceLyra:
		fmt.Fprintf(stderr, "lyrad mcp-config: --surface %q: use lyra or playwright\n", surface)
		return 2
	}
	var server map[string]any
	if useHTTP {
		s := readDaemonState(o.data())
		if !s.Running || s.HTTP == "" {
			if s.Running {
				fmt.Fprintf(stderr, "lyrad mcp-config: no lyrad serve --http is running on %s: its daemon (pid %d) serves no HTTP; restart it as lyrad serve --http, or drop --http for a stdio config\n", o.dataDir, s.PID)
			} else {
				fmt.Fprintf(stderr, "lyrad mcp-config: no lyrad serve --http is running on %s: start one (lyrad serve --http), or drop --http for a stdio config\n", o.dataDir)
			}
			return 1
		}
		// Only read: creating or replacing the token would change what the
		// running daemon checks.
		tok, err := o.data().ReadToken()
		if err != nil {
			fmt.Fprintf(stderr, "lyrad mcp-config: the daemon's token: %v\n", err)
			return 1
		}
		server = map[string]any{"type": "http", "url": s.HTTP, "headers": map[string]string{"Authorization": "Bearer " + tok}}
	} else {
		exe, err := selfPath()
		if err != nil {
			fmt.Fprintln(stderr, "lyrad mcp-config:", err)
			return 1
		}
		args := []string{"stdio"}
		if name == "playwright" {
			args = append(args, "--surface", "playwright")
		}
		server = map[string]any{"command": exe, "args": append(args, o.hostArgs()...)}
	}
	b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{name: server}}, "", "  ")
	fmt.Fprintf(stdout, "%s\n", b)
	return 0
}
