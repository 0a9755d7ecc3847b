package transport

import (
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionHeader names the streamable HTTP session a request belongs to.
const sessionHeader = "Mcp-Session-Id"

// idleSessions closes a streamable HTTP session that has had no request
// under way and no stream open for a while. A client that exits without
// DELETE (the MCP Inspector CLI does; so does any client that crashes)
// would otherwise keep its session, and with it the browser, until the
// owner idle timeout. The session's end is then what a stdio disconnect is
// (tools: SessionEnded).
//
// A live client always has something open: the real clients measured (the
// MCP Inspector CLI 2.12, go-sdk's client) keep a GET stream from just
// after initialize (some 15 ms with nothing open) to their exit. So a
// session with nothing open ends after a short timeout, and one whose last
// stream the client cut (killed, or gone with its GET stream open) sooner
// still, cutLinger: only the time for a client to resume a dropped stream
// (go-sdk's first retry comes after 1-2 s).
//
// go-sdk's StreamableHTTPOptions.SessionTimeout is not used: it counts only
// POSTs, so it would also close a live, idle client whose GET stream is
// open (protocols before 2026-07-28 keep one), and that client's next call
// would find its session gone.
type idleSessions struct {
	srv     *mcp.Server
	timeout time.Duration

	mu       sync.Mutex
	sessions map[string]*idleSession
}

// cutLinger bounds how long a session lives after its client cut its last
// stream: long enough for a stream resumed with Last-Event-ID, under load.
const cutLinger = 5 * time.Second

type idleSession struct {
	open  int // requests and streams under way
	gen   int // which arming of the timer is current
	timer *time.Timer
}

func newIdleSessions(srv *mcp.Server, timeout time.Duration) *idleSessions {
	return &idleSessions{srv: srv, timeout: timeout, sessions: map[string]*idleSession{}}
}

// wrap counts next's requests per session. DELETE ends the session at once
// (the SDK closes it); the first POST learns its id from the response.
func (s *idleSessions) wrap(next http.Handler) http.Handler {
	if s.timeout <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(sessionHeader)
		switch {
		case id == "":
			next.ServeHTTP(w, r)
			if id := w.Header().Get(sessionHeader); id != "" {
				s.begin(id)
				s.end(id, false)
			}
		case r.Method == http.MethodDelete:
			next.ServeHTTP(w, r)
			s.forget(id)
		default:
			s.begin(id)
			next.ServeHTTP(w, r)
			// Ended before its answer was written, or a GET stream that
			// ends other than by the session's close: the client went away.
			s.end(id, r.Context().Err() != nil)
		}
	})
}

func (s *idleSessions) begin(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.sessions[id]
	if e == nil {
		e = &idleSession{}
		s.sessions[id] = e
	}
	e.open++
	if e.timer != nil {
		e.timer.Stop()
	}
}

// end arms the timer when the last request or stream of the session ends,
// for cutLinger when the client cut it.
func (s *idleSessions) end(id string, cut bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.sessions[id]
	if e == nil {
		return
	}
	if e.open--; e.open > 0 {
		return
	}
	e.gen++
	gen := e.gen
	if e.timer != nil {
		e.timer.Stop()
	}
	d := s.timeout
	if cut {
		d = min(d, cutLinger)
	}
	e.timer = time.AfterFunc(d, func() { s.expire(id, gen) })
}

func (s *idleSessions) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.sessions[id]; e != nil {
		if e.timer != nil {
			e.timer.Stop()
		}
		delete(s.sessions, id)
	}
}

// expire closes the session when it is still idle since that arming of the
// timer. An unknown id (a request the SDK answered 404) closes nothing.
func (s *idleSessions) expire(id string, gen int) {
	s.mu.Lock()
	e := s.sessions[id]
	if e == nil || e.open > 0 || e.gen != gen {
		s.mu.Unlock()
		return
	}
	delete(s.sessions, id)
	s.mu.Unlock()
	for ss := range s.srv.Sessions() {
		if ss.ID() == id {
			_ = ss.Close()
		}
	}
}
