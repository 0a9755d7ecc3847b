package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawPost sends one JSON-RPC message to lyrad's /mcp as a plain HTTP
// client would, with auth as the Authorization header and session as
// Mcp-Session-Id (if not empty).
func rawPost(t *testing.T, l *lyrad, auth, session, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, l.httpURL, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", proto2025)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// rpcError is the JSON-RPC error in an HTTP answer, plain JSON or the
// first SSE event's data; nil when there is none.
func rpcError(b []byte) (id any, code float64, msg string, ok bool) {
	data := b
	if i := bytes.Index(b, []byte("data: ")); i >= 0 {
		data = b[i+len("data: "):]
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			data = data[:j]
		}
	}
	var m struct {
		ID    any `json:"id"`
		Error *struct {
			Code    float64 `json:"code"`
			Message string  `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &m) != nil || m.Error == nil {
		return nil, 0, "", false
	}
	return m.ID, m.Error.Code, m.Error.Message, true
}

// TestHTTPBySpec: the details of streamable HTTP a client written to the
// spec relies on: the auth scheme is case-insensitive; an unknown method is
// a JSON-RPC -32601 for its id; a request before initialize is a JSON-RPC
// error with a real code, not 0.
func TestHTTPBySpec(t *testing.T) {
	l := startServe(t, "")
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e-raw","version":"1"}}}`

	resp, b := rawPost(t, l, "bearer "+l.token, "", initialize)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize with a lower-case 'bearer' scheme: HTTP %d, session %q: %s", resp.StatusCode, session, b)
	}
	resp, b = rawPost(t, l, "Bearer "+l.token, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: HTTP %d: %s", resp.StatusCode, b)
	}
	resp, b = rawPost(t, l, "BEARER "+l.token, session, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if resp.StatusCode != http.StatusOK {
		t.Errorf("ping with 'BEARER': HTTP %d: %s", resp.StatusCode, b)
	}
	resp, _ = rawPost(t, l, "bearer nope", session, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token with 'bearer': HTTP %d, want 401", resp.StatusCode)
	}

	resp, b = rawPost(t, l, "Bearer "+l.token, session, `{"jsonrpc":"2.0","id":"u-7","method":"no/such/method"}`)
	id, code, msg, ok := rpcError(b)
	t.Logf("unknown method: HTTP %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), bytes.TrimSpace(b))
	if !ok || code != -32601 || id != "u-7" {
		t.Errorf("unknown method: HTTP %d %q, want JSON-RPC -32601 for id u-7 (got id %v, code %v, %q)", resp.StatusCode, b, id, code, msg)
	}

	resp, b = rawPost(t, l, "Bearer "+l.token, "", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	id, code, msg, ok = rpcError(b)
	t.Logf("before initialize: HTTP %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), bytes.TrimSpace(b))
	if !ok || code == 0 || id != float64(9) || !strings.Contains(msg, "initialize") {
		t.Errorf("tools/list before initialize: HTTP %d %q, want a JSON-RPC error with a code, for id 9, naming initialize", resp.StatusCode, b)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a request before initialize was given a session")
	}
}

// cutOnce forwards to lyrad and, the first time a response stream carries
// a progress notification, cuts the connection after passing it on: a
// stream dropped mid-call, as a flaky proxy or a sleeping laptop drops it.
type cutOnce struct {
	target string
	cut    atomic.Bool
	mu     sync.Mutex
	resume []string // Last-Event-ID of the GETs that resumed
	noCut  bool     // only forward
}

func (c *cutOnce) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, c.target, bytes.NewReader(body))
	req.Header = r.Header.Clone()
	if lei := r.Header.Get("Last-Event-ID"); lei != "" {
		c.mu.Lock()
		c.resume = append(c.resume, lei)
		c.mu.Unlock()
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			w.Write(buf[:n])
			rc.Flush()
			if r.Method == http.MethodPost && !c.noCut && bytes.Contains(buf[:n], []byte("notifications/progress")) && c.cut.CompareAndSwap(false, true) {
				panic(http.ErrAbortHandler) // the connection goes, mid-stream
			}
		}
		if err != nil {
			return
		}
	}
}

// TestHTTPStreamResumes: a tool call's response stream is cut after its
// first progress notification; go-sdk's client resumes it (GET with
// Last-Event-ID) and gets the progress sent in the gap and the answer.
func TestHTTPStreamResumes(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	l := startServe(t, "")
	proxy := &cutOnce{target: l.httpURL}
	ps := newSite(t, "127.0.0.1")
	ps.handle("/mcp", proxy.ServeHTTP)
	// The proxy is another origin than lyrad's: the request goes on with
	// lyrad's own Host (NewRequest), and carries no Origin.
	var progress atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-resuming", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress.Add(1)
		},
	})
	tr := &mcp.StreamableClientTransport{Endpoint: ps.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{l.token, http.DefaultTransport}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	cs, err := c.Connect(ctx, tr, sessionOpts(proto2025))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")

	// wait_for sends progress every second while it waits: 6 s of it.
	ctx, cancel = context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	params := &mcp.CallToolParams{Name: "wait_for", Arguments: map[string]any{"text": "never-there", "timeout_ms": 6000}}
	params.SetProgressToken("p-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("wait_for over a stream cut after its first progress: %v (cut: %v)", err, proxy.cut.Load())
	}
	var env map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &env)
	proxy.mu.Lock()
	resumed := len(proxy.resume)
	proxy.mu.Unlock()
	t.Logf("stream cut: %v; resumed %d times; %d progress notifications; answer %v", proxy.cut.Load(), resumed, progress.Load(), env["status"])
	if !proxy.cut.Load() || resumed == 0 {
		t.Fatalf("the stream was not cut and resumed (cut %v, resumes %d): the test proves nothing", proxy.cut.Load(), resumed)
	}
	wantStatus(t, env, "timeout")
	if progress.Load() < 4 {
		t.Errorf("%d progress notifications over 6 s, want those sent in the gap too (at least 4)", progress.Load())
	}
}
