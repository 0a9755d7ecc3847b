package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lyrad/lyrad/datadir"
)

type mcpConfig struct {
	MCPServers map[string]struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"mcpServers"`
}

func decodeConfig(t *testing.T, out string) mcpConfig {
	t.Helper()
	var c mcpConfig
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, out)
	}
	return c
}

func TestMCPConfigStdio(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCmd(t, "mcp-config", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := decodeConfig(t, out).MCPServers["lyrad"]
	exe, _ := os.Executable()
	want, _ := filepath.EvalSymlinks(exe)
	if s.Command != want || !filepath.IsAbs(s.Command) {
		t.Errorf("command %q, want %q", s.Command, want)
	}
	if !reflect.DeepEqual(s.Args, []string{"stdio", "--data-dir", dir}) {
		t.Errorf("args %q", s.Args)
	}

	// The default data directory is not spelled out.
	home := t.TempDir()
	t.Setenv("HOME", home)
	_, out, _ = runCmd(t, "mcp-config", "--data-dir", filepath.Join(home, ".lyra-browser"))
	if s := decodeConfig(t, out).MCPServers["lyrad"]; !reflect.DeepEqual(s.Args, []string{"stdio"}) {
		t.Errorf("default data dir: args %q", s.Args)
	}
}

// fakeDaemon writes the files a running `lyrad serve --http` leaves in dir,
// naming pid as its holder.
func fakeDaemon(t *testing.T, dir string, pid int) {
	t.Helper()
	d := datadir.New(dir)
	if err := os.WriteFile(d.DaemonLock(), []byte(strconv.Itoa(pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.Token(), []byte(fakeToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.WriteEndpoint("http://127.0.0.1:4567/mcp"); err != nil {
		t.Fatal(err)
	}
}

// fakeToken is a token as lyrad serve --http writes it: 64 hex digits.
var fakeToken = strings.Repeat("0123456789abcdef", 4)

// deadPID is the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	return c.Process.Pid
}

func TestMCPConfigHTTP(t *testing.T) {
	dir := t.TempDir()
	fakeDaemon(t, dir, os.Getpid())
	code, out, errOut := runCmd(t, "mcp-config", "--http", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := decodeConfig(t, out).MCPServers["lyrad"]
	if s.URL != "http://127.0.0.1:4567/mcp" || s.Headers["Authorization"] != "Bearer "+fakeToken || s.Type != "http" || s.Command != "" {
		t.Fatalf("got %+v", s)
	}
}

func TestMCPConfigHTTPNoDaemon(t *testing.T) {
	stale := t.TempDir()
	fakeDaemon(t, stale, deadPID(t)) // killed: its files stayed
	empty := t.TempDir()
	for _, dir := range []string{empty, stale} {
		code, out, errOut := runCmd(t, "mcp-config", "--http", "--data-dir", dir)
		if code != 1 || out != "" || !strings.Contains(errOut, "no lyrad serve --http is running") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", dir, code, out, errOut)
		}
	}
	// A daemon without --http: it is named.
	plain := t.TempDir()
	fakeDaemon(t, plain, os.Getpid())
	os.Remove(filepath.Join(plain, "http.json"))
	code, out, errOut := runCmd(t, "mcp-config", "--http", "--data-dir", plain)
	if code != 1 || out != "" || !strings.Contains(errOut, "serves no HTTP") {
		t.Errorf("daemon without --http: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// Nothing was created: a reader never mints a token or takes a lock.
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("mcp-config wrote into the data directory: %v", ents)
	}
}

func TestMCPConfigBadFlag(t *testing.T) {
	code, out, errOut := runCmd(t, "mcp-config", "--htp")
	if code != 2 || out != "" || !strings.Contains(errOut, "-htp") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
