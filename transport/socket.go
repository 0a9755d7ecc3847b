package transport

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// ListenSocket listens on a Unix socket at path, readable and writable by
// this user only. A stale socket file left by a crashed daemon is removed;
// the caller must hold the data directory's lock, so no live daemon owns it.
func ListenSocket(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// ServeSocket runs one MCP session per connection until ctx ends or ln is
// closed.
func ServeSocket(ctx context.Context, srv *Server, ln net.Listener, log *zap.Logger) error {
	return acceptEach(ctx, ln, log, func(conn net.Conn) {
		// The session's requests see ctx's values: its peer's proof.
		if err := srv.ServeStream(withPeer(ctx, conn), &mcp.IOTransport{Reader: conn, Writer: conn}); err != nil && ctx.Err() == nil {
			log.Debug("socket session", zap.Error(err))
		}
	})
}

// acceptEach serves each connection ln accepts on its own goroutine (and
// closes it after), until ctx ends or ln is closed; it returns once every
// connection is served.
func acceptEach(ctx context.Context, ln net.Listener, log *zap.Logger, serve func(net.Conn)) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			log.Warn("socket accept", zap.Error(err))
			time.Sleep(50 * time.Millisecond)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			serve(conn)
		}()
	}
}

// RelayConn joins stdin/stdout to a connection to the daemon's socket,
// byte for byte: the client speaks MCP with the daemon as if it were this
// process.
func RelayConn(ctx context.Context, conn net.Conn, in io.Reader, out io.Writer) error {
	defer conn.Close()
	back := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, conn)
		back <- err
	}()
	go func() {
		_, _ = io.Copy(conn, in)
		// The client closed stdin: tell the daemon, then let its last
		// answers drain.
		if uc, ok := conn.(*net.UnixConn); ok {
			_ = uc.CloseWrite()
		} else {
			conn.Close()
		}
	}()
	select {
	case err := <-back:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
