package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// eofScript is what `printf ... | lyrad stdio` sends: every request, then
// the end of its input at once, before any answer.
var eofScript = strings.Join([]string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e-printf","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_url","arguments":{}}}`,
}, "\n") + "\n"

// runEOF runs `lyrad stdio` once on dataDir with eofScript as its whole
// input and returns the ids answered and its stderr.
func runEOF(t *testing.T, dataDir string, script string) (map[float64]bool, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lyradBin, "stdio")
	cmd.Env = baseEnv(dataDir)
	cmd.Stdin = strings.NewReader(script)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lyrad stdio: %v\n%s", err, stderr.String())
	}
	got := map[float64]bool{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 4<<20)
	for sc.Scan() {
		var msg struct {
			ID    *float64        `json:"id"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.ID != nil && msg.Error == nil {
			got[*msg.ID] = true
		}
	}
	return got, stderr.String()
}

// TestStdioAnswersEverythingBeforeEOF: a client that writes its requests
// and closes its input (printf into lyrad stdio) gets every answer, in
// process and relayed to a daemon; the audit is not closed under a call,
// and each session's end row is written. 20 runs of each.
func TestStdioAnswersEverythingBeforeEOF(t *testing.T) {
	const runs = 20
	count := func(t *testing.T, dataDir string, relayed bool) {
		answered, endRows := 0, 0
		for i := 0; i < runs; i++ {
			got, stderr := runEOF(t, dataDir, eofScript)
			if len(got) == 4 {
				answered++
			} else {
				t.Logf("run %d: answered %v of ids 1-4", i, got)
			}
			if strings.Contains(stderr, "audit write failed") {
				t.Errorf("run %d: %s", i, stderr)
			}
			if relayed {
				// The daemon writes it when the relay's connection ends.
				waitFor(t, "the relayed session's end row", 30*time.Second, func() bool {
					return len(rowsWhere(auditRows(t, dataDir), has{"kind": "session", "status": "ended"})) >= i+1
				})
			}
			endRows = len(rowsWhere(auditRows(t, dataDir), has{"kind": "session", "status": "ended"}))
		}
		calls := len(rowsWhere(auditRows(t, dataDir), has{"kind": "tool", "tool": "get_url"}))
		t.Logf("%d of %d runs answered all 4 requests; %d end rows, %d get_url rows", answered, runs, endRows, calls)
		if answered != runs || endRows != runs || calls != runs {
			t.Errorf("%d of %d runs answered every request, %d session end rows, %d call rows; want %d of each", answered, runs, endRows, calls, runs)
		}
	}
	t.Run("in process", func(t *testing.T) { count(t, t.TempDir(), false) })
	t.Run("relayed", func(t *testing.T) {
		l := startServe(t, "")
		count(t, l.dataDir, true)
	})
}

// TestStdioEOFUnderASlowCall: the input ends while open_browser is still
// launching the browser: its answer comes, then the browser is closed.
func TestStdioEOFUnderASlowCall(t *testing.T) {
	needBrowser(t)
	dir := t.TempDir()
	script := strings.Replace(eofScript, `"name":"get_url"`, `"name":"open_browser"`, 1)
	got, stderr := runEOF(t, dir, script)
	if len(got) != 4 {
		t.Errorf("answered %v of ids 1-4\n%s", got, stderr)
	}
	if strings.Contains(stderr, "audit write failed") {
		t.Errorf("%s", stderr)
	}
	rows := auditRows(t, dir)
	for _, want := range []has{{"kind": "browser", "status": "opened"}, {"kind": "session", "status": "ended"}} {
		if len(rowsWhere(rows, want)) != 1 {
			t.Errorf("no audit row %v: %s", want, fmt.Sprint(rows))
		}
	}
	if n := len(browserPIDs(t, dir)); n != 0 {
		t.Errorf("%d browser processes left after lyrad stdio exited", n)
	}
}

// TestStdioBeforeInitialize: a request before initialize is answered with
// a JSON-RPC error that has a code (-32600), not code 0.
func TestStdioBeforeInitialize(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lyradBin, "stdio")
	cmd.Env = baseEnv(t.TempDir())
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lyrad stdio: %v", err)
	}
	var msg struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(out), &msg) != nil || msg.Error == nil || msg.Error.Code != -32600 {
		t.Errorf("tools/list before initialize over stdio: %s, want a JSON-RPC error -32600", out)
	}
}
