package transport

import (
	"bytes"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// jsonRPCErrors answers, as JSON-RPC errors, what go-sdk's streamable
// handler answers with a plain-text HTTP 400 (protocols before 2026-07-28):
//
//   - a request with no Mcp-Session-Id other than initialize: HTTP 400
//     with error -32600 naming initialize (the SDK would open a session
//     for it and answer error code 0, "invalid during session
//     initialization", and so every call of a client that skipped it);
//   - an unknown method: error -32601 (method not found) for its id;
//   - an invalid request (an id on a notification, none on a call,
//     missing params): error -32600.
//
// Anything else passes through untouched, streams included.
func jsonRPCErrors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
		r.Body.Close()
		if err != nil {
			http.Error(w, "request body too large or unreadable", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		req := oneRequest(body)
		if req == nil {
			next.ServeHTTP(w, r) // a response, a batch or no JSON: the SDK's
			return
		}
		// (A client on protocol 2026-07-28 or later has no sessions: the
		// SDK tells it which protocols this server speaks.)
		pv := r.Header.Get("Mcp-Protocol-Version")
		if r.Header.Get(sessionHeader) == "" && req.Method != "initialize" && req.Method != "server/discover" && (pv == "" || pv < "2026-07-28") {
			writeRPCError(w, http.StatusBadRequest, req.ID, -32600,
				"no session: send initialize first (and then its Mcp-Session-Id with every request)")
			return
		}
		if !req.IsCall() {
			next.ServeHTTP(w, r)
			return
		}
		rw := &plainRejection{ResponseWriter: w}
		next.ServeHTTP(rw, r)
		if !rw.held {
			return
		}
		msg := strings.TrimSpace(rw.body.String())
		switch {
		case strings.HasPrefix(msg, "JSON RPC not handled"):
			writeRPCError(w, http.StatusOK, req.ID, -32601, "method not found: "+req.Method)
		case strings.HasPrefix(msg, "invalid request"):
			writeRPCError(w, http.StatusOK, req.ID, -32600, msg)
		default:
			w.WriteHeader(rw.status)
			w.Write(rw.body.Bytes())
		}
	})
}

// maxBody is go-sdk's own default limit on a request body.
const maxBody = 4 << 20

// oneRequest is body's JSON-RPC request when it holds exactly one.
func oneRequest(body []byte) *jsonrpc.Request {
	b := bytes.TrimSpace(body)
	if len(b) == 0 || b[0] != '{' {
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(b)
	if err != nil {
		return nil
	}
	req, _ := msg.(*jsonrpc.Request)
	return req
}

func writeRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, code int64, msg string) {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		http.Error(w, msg, status)
		return
	}
	w.Header().Del("X-Content-Type-Options")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(data)
}

// plainRejection holds back an HTTP 400 (the SDK's plain-text refusals of a
// request before it runs) and passes everything else, SSE streams
// included, straight through.
type plainRejection struct {
	http.ResponseWriter
	held   bool
	status int
	body   bytes.Buffer
}

func (p *plainRejection) WriteHeader(code int) {
	if code == http.StatusBadRequest && strings.HasPrefix(p.Header().Get("Content-Type"), "text/plain") {
		p.held, p.status = true, code
		return
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *plainRejection) Write(b []byte) (int, error) {
	if p.held {
		return p.body.Write(b)
	}
	return p.ResponseWriter.Write(b)
}

func (p *plainRejection) Flush() {
	if !p.held {
		http.NewResponseController(p.ResponseWriter).Flush()
	}
}

func (p *plainRejection) Unwrap() http.ResponseWriter { return p.ResponseWriter }
