package main

import (
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ioTransport is stdio for the real process and plain pipes in tests.
type ioTransport struct {
	in  io.Reader
	out io.Writer
}

func (t *ioTransport) transport() mcp.Transport {
	if t.in == os.Stdin && t.out == os.Stdout {
		return &mcp.StdioTransport{}
	}
	return &mcp.IOTransport{Reader: io.NopCloser(t.in), Writer: nopWriteCloser{t.out}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
