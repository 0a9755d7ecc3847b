package chrome

import (
	"bytes"
	"strconv"
)

// dropMarker is what Chrome's DevTools server logs (net/server/
// http_connection.cc, LOG(ERROR)) when a message to the client does not fit
// the connection's send buffer, 256 MiB for DevTools: "Too large write data
// is pending: size=N, max_buffer_size=M". The message is dropped without a
// word on the protocol. The one message that size is a Fetch.requestPaused
// carrying an upload body: the request then stays paused for ever.
var dropMarker = []byte("Too large write data is pending: size=")

// maxStderrLine bounds the part of one stderr line kept while it is read;
// the marker sits near the start of Chrome's log lines.
const maxStderrLine = 512

// dropWatcher is an io.Writer over Chrome's stderr that calls onDrop with
// the size of each DevTools message Chrome dropped.
type dropWatcher struct {
	onDrop func(size int64)
	line   []byte
}

func (w *dropWatcher) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		part := p
		if i >= 0 {
			part = p[:i]
		}
		if room := maxStderrLine - len(w.line); room > 0 {
			w.line = append(w.line, part[:min(room, len(part))]...)
		}
		if i < 0 {
			break
		}
		w.check(w.line)
		w.line = w.line[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (w *dropWatcher) check(line []byte) {
	i := bytes.Index(line, dropMarker)
	if i < 0 {
		return
	}
	digits := line[i+len(dropMarker):]
	end := 0
	for end < len(digits) && digits[end] >= '0' && digits[end] <= '9' {
		end++
	}
	size, err := strconv.ParseInt(string(digits[:end]), 10, 64)
	if err != nil {
		size = -1 // dropped all the same; the size is unknown
	}
	w.onDrop(size)
}
