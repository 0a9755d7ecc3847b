package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lyrad/lyrad/audit"
)

// auditDir makes a data dir whose trail holds rows (one JSON object each)
// and then tail, written as is.
func auditDir(t *testing.T, tail string, rows ...map[string]any) string {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	for _, r := range rows {
		j, _ := json.Marshal(r)
		b.Write(append(j, '\n'))
	}
	b.WriteString(tail)
	if err := os.WriteFile(filepath.Join(dir, "audit.jsonl"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func row(ago time.Duration, kind, session, status string) map[string]any {
	return map[string]any{"ts": time.Now().Add(-ago).UTC().Format(time.RFC3339Nano), "kind": kind, "session": session, "status": status, "tool": "navigate"}
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

func jsonLines(t *testing.T, s string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("not a JSON line: %q", l)
		}
		out = append(out, m)
	}
	return out
}

func TestAuditFiltersAndTornLine(t *testing.T) {
	dir := auditDir(t, `{"ts":"2026-01-01T00:00:00Z","kind":"tool","sta`,
		row(time.Hour, "tool", "aaaa1111", "ok"),
		row(10*time.Second, "tool", "aaaa1111", "blocked"),
		row(5*time.Second, "guard", "bbbb2222", "allow"),
		row(time.Second, "tool", "bbbb2222", "ok"),
	)

	cases := []struct {
		args []string
		want int
	}{
		{nil, 4},
		{[]string{"--kind", "tool"}, 3},
		{[]string{"--kind", "tool,guard"}, 4},
		{[]string{"--session", "bbbb*"}, 2},
		{[]string{"--session", "bbbb2222"}, 2},
		{[]string{"--session", "bbbb"}, 0},
		{[]string{"--status", "ok"}, 2},
		{[]string{"--since", "1m"}, 3},
		{[]string{"--kind", "tool", "--since", "1m"}, 2},
		{[]string{"--since", time.Now().Add(-30 * time.Second).UTC().Format(time.RFC3339)}, 3},
	}
	for _, c := range cases {
		args := append([]string{"audit", "--data-dir", dir, "--json"}, c.args...)
		code, out, errOut := runCmd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		if got := len(jsonLines(t, out)); got != c.want {
			t.Errorf("%v: %d rows, want %d:\n%s", c.args, got, c.want, out)
		}
	}
	code, out, _ := runCmd(t, "audit", "--data-dir", dir, "--kind", "guard")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], "TIME") || !strings.Contains(lines[1], "guard") || !strings.Contains(lines[1], "bbbb2222") {
		t.Fatalf("table: exit %d\n%s", code, out)
	}
}

func TestAuditGarbageLinesSkipped(t *testing.T) {
	dir := auditDir(t, "", row(time.Second, "tool", "s", "ok"))
	p := filepath.Join(dir, "audit.jsonl")
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"ts\":\"torn\n\nnot json\n[1]\n")
	f.Close()
	code, out, errOut := runCmd(t, "audit", "--data-dir", dir, "--json")
	if code != 0 || len(jsonLines(t, out)) != 1 {
		t.Fatalf("exit %d, %q %q", code, out, errOut)
	}
}

func TestAuditBadFlags(t *testing.T) {
	dir := auditDir(t, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--since", "yesterday"}, "--since"},
		{[]string{"--since", "-5m"}, "--since"},
		{[]string{"--nope"}, "-nope"},
		{[]string{"extra"}, `"extra"`},
	} {
		code, out, errOut := runCmd(t, append([]string{"audit", "--data-dir", dir}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s", c.args, code, out, errOut, c.want)
		}
	}
}

func TestAuditNoTrail(t *testing.T) {
	code, out, errOut := runCmd(t, "audit", "--data-dir", t.TempDir())
	if code != 1 || out != "" || !strings.Contains(errOut, "no audit trail") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func waitOutput(t *testing.T, b *syncBuf, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(b.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in output:\n%s", want, b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestAuditFollowSeesAppendedRows(t *testing.T) {
	defer func(d time.Duration) { auditPoll = d }(auditPoll)
	auditPoll = 20 * time.Millisecond
	dir := auditDir(t, "", row(time.Second, "tool", "first000", "ok"))
	p := filepath.Join(dir, "audit.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuf
	done := make(chan int)
	go func() {
		done <- runAudit(ctx, p, auditFilter{kinds: []string{"tool"}}, true, true, &out, &errOut)
	}()
	waitOutput(t, &out, "first000")

	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// A row in two writes: the first half must not be printed or lost.
	j, _ := json.Marshal(row(0, "tool", "second00", "ok"))
	f.Write(j[:10])
	time.Sleep(3 * auditPoll)
	f.Write(append(j[10:], '\n'))
	g, _ := json.Marshal(row(0, "guard", "filtered", "allow"))
	f.Write(append(g, '\n'))
	waitOutput(t, &out, "second00")

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("-f did not stop when its context ended")
	}
	rows := jsonLines(t, out.String())
	if len(rows) != 2 || strings.Contains(out.String(), "filtered") {
		t.Fatalf("want first and second rows only:\n%s", out.String())
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	if got, _ := parseSince("90s", now); !got.Equal(now.Add(-90 * time.Second)) {
		t.Errorf("90s: %v", got)
	}
	if got, _ := parseSince("2026-12-01T07:00:00Z", now); !got.Equal(now.Add(-time.Hour)) {
		t.Errorf("RFC3339: %v", got)
	}
}

// TestAuditSessionExactNewlinesUnknownKind: --session mcp-1 is mcp-1 and
// not mcp-10 (mcp-1* is both); a row whose values hold newlines is one
// line of the table; a kind no row has warns.
func TestAuditSessionExactNewlinesUnknownKind(t *testing.T) {
	q := row(time.Second, "consent", "mcp-1", "denied")
	q["question"] = "Allow this?\nline two\r\x1b[2J"
	q["tool"] = "nav\nigate"
	dir := auditDir(t, "",
		row(3*time.Second, "tool", "mcp-1", "ok"),
		row(2*time.Second, "tool", "mcp-10", "ok"),
		row(2*time.Second, "tool", "mcp-19-3f9a2c1b", "ok"),
		q,
	)
	for _, c := range []struct {
		session string
		want    int
	}{{"mcp-1", 2}, {"mcp-1*", 4}, {"mcp-10", 1}, {"mcp-19*", 1}, {"mcp-19", 0}} {
		_, out, _ := runCmd(t, "audit", "--data-dir", dir, "--json", "--session", c.session)
		if got := len(jsonLines(t, out)); got != c.want {
			t.Errorf("--session %s: %d rows, want %d", c.session, got, c.want)
		}
	}
	code, out, errOut := runCmd(t, "audit", "--data-dir", dir, "--session", "mcp-1")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[2], `question=Allow this?\nline two\r\x1b[2J`) || !strings.Contains(lines[2], `nav\nigate`) {
		t.Errorf("table: exit %d, %d lines (want a header and 2 rows), stderr %q:\n%s", code, len(lines), errOut, out)
	}
	code, out, errOut = runCmd(t, "audit", "--data-dir", dir, "--kind", "tool,nope")
	if code != 0 || !strings.Contains(errOut, `"nope"`) || strings.Contains(errOut, `"tool"`) || len(strings.Split(strings.TrimSpace(out), "\n")) != 4 {
		t.Errorf("--kind tool,nope: exit %d, stderr %q\n%s", code, errOut, out)
	}
}

// TestAuditKindsWhole: every kind of row the code writes (audit.Row{Kind:
// "..."}) is in audit.Kinds, so --kind warns of none of them.
func TestAuditKindsWhole(t *testing.T) {
	re := regexp.MustCompile(`audit\.Row\{Kind: +"([a-z_]+)"`)
	local := regexp.MustCompile(`\bRow\{Kind: +"([a-z_]+)"`)
	seen := 0
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		b, _ := os.ReadFile(p)
		m := re.FindAllStringSubmatch(string(b), -1)
		if strings.HasSuffix(filepath.Dir(p), "audit") {
			m = local.FindAllStringSubmatch(string(b), -1)
		}
		for _, k := range m {
			seen++
			if !slices.Contains(audit.Kinds, k[1]) {
				t.Errorf("%s writes rows of kind %q, not in audit.Kinds", p, k[1])
			}
		}
		return nil
	})
	if err != nil || seen < 10 {
		t.Fatalf("walked the sources: %v, %d rows found", err, seen)
	}
}
