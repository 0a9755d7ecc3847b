package main

import (
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/datadir"
)

func statusJSON(t *testing.T, dir string, wantCode int) map[string]any {
	t.Helper()
	code, out, errOut := runCmd(t, "status", "--json", "--data-dir", dir)
	if code != wantCode {
		t.Fatalf("exit %d, want %d: %s", code, wantCode, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if v, ok := m["driver"]; !ok || v != nil || m["driver_note"] == "" {
		t.Errorf("driver must be null with a note: %v", m)
	}
	return m
}

func TestStatusNoDaemon(t *testing.T) {
	m := statusJSON(t, t.TempDir(), 3)
	if m["running"] != false || m["socket"] != nil || m["http"] != nil {
		t.Errorf("%v", m)
	}
	stale := t.TempDir()
	fakeDaemon(t, stale, deadPID(t))
	m = statusJSON(t, stale, 3)
	if m["running"] != false || m["stale"] != true || m["http"] != nil {
		t.Errorf("stale: %v", m)
	}
	code, out, _ := runCmd(t, "status", "--data-dir", stale)
	if code != 3 || !strings.Contains(out, "which is gone") {
		t.Errorf("text: exit %d\n%s", code, out)
	}
}

func TestStatusRunning(t *testing.T) {
	dir := auditDir(t, `{"kind":"tool","sta`,
		row(time.Minute, "session", "s-old", "driver"),
		row(30*time.Second, "session", "s-new", "driver"),
		row(10*time.Second, "tool", "s-new", "ok"),
	)
	d := datadir.New(dir)
	fakeDaemon(t, dir, os.Getpid())
	ln, err := net.Listen("unix", d.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.WriteFile(d.BrowserPID(), []byte(`{"pid":`+itoa(os.Getpid())+`,"start":"1","profile":"p"}`+"\n"), 0o600)

	m := statusJSON(t, dir, 0)
	if m["running"] != true || m["pid"] != float64(os.Getpid()) || m["socket"] != d.Socket() ||
		m["http"] != "http://127.0.0.1:4567/mcp" || m["browser_running"] != true {
		t.Errorf("%v", m)
	}
	recent, _ := m["recent"].(map[string]any)
	sess, _ := recent["session"].(map[string]any)
	tool, _ := recent["tool"].(map[string]any)
	if sess["session"] != "s-new" || tool["status"] != "ok" || tool["args"] != nil {
		t.Errorf("recent: %v", recent)
	}
	code, out, _ := runCmd(t, "status", "--data-dir", dir)
	for _, want := range []string{"daemon:    running, pid", "http:      http://127.0.0.1:4567/mcp", "browser:   running", "last session:", "s-new"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("text lacks %q (exit %d):\n%s", want, code, out)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestStatusBadFlag(t *testing.T) {
	code, out, errOut := runCmd(t, "status", "--jsn")
	if code != 2 || out != "" || !strings.Contains(errOut, "-jsn") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
