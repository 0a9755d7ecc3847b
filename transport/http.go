package transport

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eventStoreBytes bounds the events kept for streams to resume, across
// every HTTP session.
const eventStoreBytes = 10 << 20

// HTTPHandler serves streamable HTTP MCP at /mcp, for loopback only: a
// request must carry the bearer token, name this server in Host (no DNS
// rebinding) and, when a browser sends an Origin, come from this server's
// own origin (a web page cannot drive it). A session with no request under
// way and no stream open for sessionTimeout is closed (0: never), as DELETE
// closes it.
//
// A stream the client lost can be resumed (Last-Event-ID): every event is
// kept in go-sdk's in-memory event store, bounded (eventStoreBytes in all,
// the oldest dropped first), so what was sent in the gap, a progress or a
// log notification, is delivered on resume.
func HTTPHandler(srv *mcp.Server, token string, port int, sessionTimeout time.Duration) http.Handler {
	store := mcp.NewMemoryEventStore(nil)
	store.SetMaxBytes(eventStoreBytes)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{EventStore: store})
	mcpHandler := newIdleSessions(srv, sessionTimeout).wrap(jsonRPCErrors(sdk))
	allowedHost := map[string]bool{
		fmt.Sprintf("127.0.0.1:%d", port): true,
		fmt.Sprintf("localhost:%d", port): true,
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpHandler)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowedHost[strings.ToLower(r.Host)] {
			deny(w, http.StatusForbidden, "foreign Host header: lyrad answers only 127.0.0.1 and localhost")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !allowedHost[strings.ToLower(strings.TrimPrefix(o, "http://"))] {
			deny(w, http.StatusForbidden, "cross-origin request refused")
			return
		}
		// The scheme is case-insensitive (RFC 9110 11.1): "bearer" too.
		scheme, got, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), []byte(token)) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="lyrad"`)
			deny(w, http.StatusUnauthorized, "missing or wrong bearer token: see `lyrad doctor` or <data_dir>/http-token")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func deny(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

// ListenHTTP listens on 127.0.0.1:port (0 picks one) and reports the port.
func ListenHTTP(port int) (net.Listener, int, error) {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, 0, err
	}
	return ln, ln.Addr().(*net.TCPAddr).Port, nil
}
