package cdpconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// The options of chromedp: Chrome can send strings that are not valid UTF-8
// (for example page text), and refusing them would drop the whole message.
var (
	marshalOpts   = jsonv2.JoinOptions(jsonv2.DefaultOptionsV2(), jsonv2.AllowInvalidUTF8(true))
	unmarshalOpts = jsonv2.JoinOptions(jsonv2.DefaultOptionsV2(), jsonv2.AllowInvalidUTF8(true))
)

// message is one decoded incoming message: a reply when hasID, else an event.
type message struct {
	id        int64
	hasID     bool
	sessionID target.SessionID
	method    string
	params    jsonv2.Value
	result    jsonv2.Value
	err       *cdproto.Error
}

// msgDecoder decodes the messages of one connection; only the reader
// goroutine uses it. It reuses its buffers between messages.
type msgDecoder struct {
	filter postDataFilter
	dec    jsonv2.Decoder
}

// bigDecoderBuffer is the size of filtered input past which the decoder is
// replaced after the message, so that one large reply does not pin a large
// buffer for the life of the connection.
const bigDecoderBuffer = 1 << 20

// decode decodes one websocket message from r as a stream. The message can be
// huge (Chrome puts a whole upload body into Fetch.requestPaused), so it is
// never held whole: the postDataFilter drops the body members while the bytes
// stream past, and the decoder reads the top-level members one by one,
// keeping only small copies.
func (d *msgDecoder) decode(r io.Reader) (message, error) {
	d.filter.reset(r)
	defer func() {
		if d.filter.passed > bigDecoderBuffer {
			d.dec = jsonv2.Decoder{}
		}
	}()
	var m message
	dec := &d.dec
	dec.Reset(&d.filter, unmarshalOpts)

	tok, err := dec.ReadToken()
	if err != nil {
		return m, err
	}
	if tok.Kind() != '{' {
		return m, fmt.Errorf("message is not a JSON object but %v", tok.Kind())
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return m, err
		}
		switch name.String() {
		case "id":
			m.hasID = true
			err = jsonv2.UnmarshalDecode(dec, &m.id, unmarshalOpts)
		case "sessionId":
			err = jsonv2.UnmarshalDecode(dec, &m.sessionID, unmarshalOpts)
		case "method":
			err = jsonv2.UnmarshalDecode(dec, &m.method, unmarshalOpts)
		case "params":
			m.params, err = readValue(dec)
		case "result":
			m.result, err = readValue(dec)
		case "error":
			err = jsonv2.UnmarshalDecode(dec, &m.err, unmarshalOpts)
		default:
			err = dec.SkipValue()
		}
		if err != nil {
			return m, err
		}
	}
	if _, err := dec.ReadToken(); err != nil { // the closing '}'
		return m, err
	}
	return m, nil
}

// readValue copies the next value out of the decoder, whose buffer it would
// otherwise alias.
func readValue(dec *jsonv2.Decoder) (jsonv2.Value, error) {
	v, err := dec.ReadValue()
	if err != nil {
		return nil, err
	}
	return v.Clone(), nil
}

// postDataFilter is an io.Reader that passes JSON through but drops every
// object member named postData or postDataEntries inside the top-level
// "params" member. Those hold upload bodies (up to ~100 MB per message); the
// guard needs only request.hasPostData, which Chrome sends too. Dropping them
// before the JSON decoder sees them matters because the decoder must hold any
// string token whole in its buffer.
//
// It is a small lexer: it tracks nesting, strings and member names, holds back
// a comma and the following member name until it knows whether the member is
// dropped, and skips a dropped value without keeping it. It trusts the input
// to be JSON; on anything else it passes bytes on and lets the decoder fail.
// Member names are compared as raw bytes: Chrome does not escape letters.
type postDataFilter struct {
	r      io.Reader
	in     []byte // read chunk
	out    []byte // filtered bytes not yet returned
	off    int    // read position in out
	err    error  // sticky error of r
	passed int64  // bytes returned so far

	state    int
	esc      bool   // a backslash was the last byte of the previous chunk
	stack    []byte // open containers, '{' or '['
	wantName bool   // the next string in the current object is a member name
	held     []byte // held back: [comma, whitespace] and the member name so far
	inParams bool   // the current top-level member is "params"
	// dropComma is set when a dropped member had no comma before it (it was
	// the first of its object): the comma after it must go too.
	dropComma bool

	// Skipping a dropped member's value.
	skipDepth   int
	skipStarted bool
	skipStr     bool
}

const (
	stNormal = iota // between tokens
	stString        // inside a string value, passing it on
	stName          // inside a member name, holding it back
	stSkip          // inside a dropped member, discarding it
)

// reset starts a new message, keeping the buffers unless they grew large.
func (f *postDataFilter) reset(r io.Reader) {
	in, out, stack, held := f.in, f.out[:0], f.stack[:0], f.held[:0]
	if in == nil {
		in = make([]byte, 32<<10)
	}
	if cap(out) > 256<<10 {
		out = nil
	}
	if cap(held) > 4<<10 {
		held = nil
	}
	*f = postDataFilter{r: r, in: in, out: out, stack: stack, held: held}
}

func (f *postDataFilter) Read(p []byte) (int, error) {
	for f.off == len(f.out) {
		if f.err != nil {
			return 0, f.err
		}
		f.out, f.off = f.out[:0], 0
		n, err := f.r.Read(f.in)
		f.process(f.in[:n])
		if err != nil {
			f.err = err
			// A truncated message: hand on what was held so that the
			// decoder reports the error at the right place.
			f.out = append(f.out, f.held...)
			f.held = f.held[:0]
		}
	}
	n := copy(p, f.out[f.off:])
	f.off += n
	f.passed += int64(n)
	return n, nil
}

func (f *postDataFilter) process(b []byte) {
	for len(b) > 0 {
		switch f.state {
		case stString:
			n, closed := scanString(b, &f.esc)
			f.out = append(f.out, b[:n]...)
			b = b[n:]
			if closed {
				f.state = stNormal
			}
		case stName:
			n, closed := scanString(b, &f.esc)
			f.held = append(f.held, b[:n]...)
			b = b[n:]
			if closed {
				f.endName()
			}
		case stSkip:
			b = f.skip(b)
		default:
			f.normal(b[0])
			b = b[1:]
		}
	}
}

// droppable reports whether a member of the current object may be dropped:
// the object is params itself or inside it.
func (f *postDataFilter) droppable() bool {
	return f.inParams && len(f.stack) >= 2 && f.stack[len(f.stack)-1] == '{'
}

func (f *postDataFilter) normal(c byte) {
	var top byte
	if len(f.stack) > 0 {
		top = f.stack[len(f.stack)-1]
	}
	if len(f.held) > 0 && c != '"' && !isSpace(c) {
		// Not JSON (a comma not followed by a name); pass it on.
		f.out = append(f.out, f.held...)
		f.held = f.held[:0]
	}
	switch c {
	case '{':
		f.stack = append(f.stack, c)
		f.wantName = true
		f.dropComma = false
	case '[':
		f.stack = append(f.stack, c)
		f.wantName = false
	case '}', ']':
		if len(f.stack) > 0 {
			f.stack = f.stack[:len(f.stack)-1]
		}
		f.wantName = false
		f.dropComma = false
	case ',':
		if top == '{' {
			f.wantName = true
			if f.dropComma {
				f.dropComma = false
				return
			}
			if f.droppable() {
				f.held = append(f.held, c)
				return
			}
		}
	case '"':
		f.esc = false
		if f.wantName && top == '{' {
			f.wantName = false
			f.held = append(f.held, c)
			f.state = stName
			return
		}
		f.state = stString
	case ' ', '\t', '\r', '\n':
		if len(f.held) > 0 {
			f.held = append(f.held, c)
			return
		}
	}
	f.out = append(f.out, c)
}

// endName decides the fate of the member whose name was just read.
func (f *postDataFilter) endName() {
	f.state = stNormal
	name := f.held[bytes.IndexByte(f.held, '"')+1 : len(f.held)-1]
	switch {
	case len(f.stack) == 1:
		f.inParams = string(name) == "params"
	case f.droppable() && (string(name) == "postData" || string(name) == "postDataEntries"):
		f.dropComma = f.held[0] != ','
		f.held = f.held[:0]
		f.state = stSkip
		f.skipDepth, f.skipStarted, f.skipStr = 0, false, false
		return
	}
	f.out = append(f.out, f.held...)
	f.held = f.held[:0]
}

// skip discards the colon and value of a dropped member. It returns the rest
// of b after the value; a byte that ends a number or literal is not consumed.
func (f *postDataFilter) skip(b []byte) []byte {
	for i := 0; i < len(b); {
		if f.skipStr {
			n, closed := scanString(b[i:], &f.esc)
			i += n
			if closed {
				f.skipStr = false
				if f.skipDepth == 0 {
					f.state = stNormal
					return b[i:]
				}
			}
			continue
		}
		switch c := b[i]; {
		case !f.skipStarted && (c == ':' || isSpace(c)):
		case c == '"':
			f.skipStarted, f.skipStr, f.esc = true, true, false
		case c == '{' || c == '[':
			f.skipStarted = true
			f.skipDepth++
		case c == '}' || c == ']':
			if f.skipDepth == 0 { // ends a scalar; belongs to the parent
				f.state = stNormal
				return b[i:]
			}
			f.skipDepth--
			if f.skipDepth == 0 {
				f.state = stNormal
				return b[i+1:]
			}
		case f.skipDepth == 0 && (c == ',' || isSpace(c)):
			f.state = stNormal
			return b[i:]
		default:
			f.skipStarted = true
		}
		i++
	}
	return nil
}

// scanString consumes string content (after the opening quote) from b. It
// returns how many bytes it consumed and whether the closing quote was among
// them; esc carries a trailing backslash over to the next chunk. It finds
// quotes and backslashes with bytes.IndexByte and never rescans, so a 100 MB
// body costs one fast pass.
func scanString(b []byte, esc *bool) (int, bool) {
	q := -1 // position of the next quote at or after i (len(b) if none)
	for i := 0; i < len(b); {
		if *esc {
			*esc = false
			i++
			continue
		}
		if q < i {
			if k := bytes.IndexByte(b[i:], '"'); k >= 0 {
				q = i + k
			} else {
				q = len(b)
			}
		}
		if k := bytes.IndexByte(b[i:q], '\\'); k >= 0 {
			i += k + 1
			*esc = true
			continue
		}
		if q == len(b) {
			return len(b), false
		}
		return q + 1, true
	}
	return len(b), false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

var errNotText = errors.New("binary websocket message")
