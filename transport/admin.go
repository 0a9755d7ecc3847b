package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"time"

	"go.uber.org/zap"
)

// The admin socket: operator commands from a person at a terminal (lyrad
// takeover, lyrad resume, lyrad approve), one JSON object a line each way.
// It is a Unix socket in the data directory, readable and writable by this
// user only (ListenSocket), so only someone who could read the profile
// anyway can use it.

// AdminHandler answers one operator request.
type AdminHandler func(ctx context.Context, req map[string]any) map[string]any

// adminTimeout bounds one request.
const adminTimeout = 30 * time.Second

// ServeAdmin answers requests on ln until ctx ends.
func ServeAdmin(ctx context.Context, ln net.Listener, h AdminHandler, log *zap.Logger) {
	_ = acceptEach(ctx, ln, log, func(conn net.Conn) {
		_ = conn.SetDeadline(time.Now().Add(adminTimeout))
		sc := bufio.NewScanner(conn)
		sc.Buffer(nil, 64<<10)
		if !sc.Scan() {
			return
		}
		out := map[string]any{"status": "error", "error": "the request is not a JSON object"}
		var req map[string]any
		if json.Unmarshal(sc.Bytes(), &req) == nil {
			rctx, cancel := context.WithTimeout(ctx, adminTimeout)
			out = h(rctx, req)
			cancel()
		}
		b, _ := json.Marshal(out)
		if _, err := conn.Write(append(b, '\n')); err != nil {
			log.Debug("admin reply", zap.Error(err))
		}
	})
}

// AskAdmin sends one request to the admin socket at path and answers the
// reply.
func AskAdmin(ctx context.Context, path string, req map[string]any) (map[string]any, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	b, _ := json.Marshal(req)
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(conn)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, net.ErrClosed
	}
	var out map[string]any
	if err := json.Unmarshal(sc.Bytes(), &out); err != nil {
		return nil, err
	}
	return out, nil
}
