package cdpconn

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/chromedp/cdproto/cdp/jsonv2"
)

// chunkReader returns at most n bytes per Read, to cross every state of the
// filter over chunk boundaries.
type chunkReader struct {
	r io.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

func TestPostDataFilter(t *testing.T) {
	tests := []struct{ in, want string }{
		// Not inside params: kept (a command result may hold postData).
		{`{"id":1,"result":{"postData":"x"}}`, `{"id":1,"result":{"postData":"x"}}`},
		{`{"method":"m","params":{"x":1},"postData":"top"}`, `{"method":"m","params":{"x":1},"postData":"top"}`},
		// The shape of Fetch.requestPaused.
		{
			`{"method":"Fetch.requestPaused","params":{"requestId":"r","request":{"url":"u","method":"POST","postData":"abc","hasPostData":true,"postDataEntries":[{"bytes":"QQ=="},{"bytes":"Qg=="}]},"frameId":"f"},"sessionId":"S"}`,
			`{"method":"Fetch.requestPaused","params":{"requestId":"r","request":{"url":"u","method":"POST","hasPostData":true},"frameId":"f"},"sessionId":"S"}`,
		},
		{`{"params":{"postData":"a","b":1}}`, `{"params":{"b":1}}`},
		{`{"params":{"postData":"a"}}`, `{"params":{}}`},
		{`{"params":{"a":1,"postData":"x"}}`, `{"params":{"a":1}}`},
		{
			`{"params":{"postData":"a","postDataEntries":[1,[2],{"x":"]"}],"c":{"postData":{"x":"}"}}}}`,
			`{"params":{"c":{}}}`,
		},
		{`{"params":{"a":1,"postData":123,"b":true,"postDataEntries":null}}`, `{"params":{"a":1,"b":true}}`},
		{`{"params":{"postData":-1.5e3}}`, `{"params":{}}`},
		{`{"params":{"postData":"a\"b\\","k":"v\"}\\"}}`, `{"params":{"k":"v\"}\\"}}`},
		{`{"params":{"list":[{"postData":"a"},{"b":1,"postData":"c"}]}}`, `{"params":{"list":[{},{"b":1}]}}`},
		{`{"params":{"k":"postData","postDataX":1,"xpostData":2}}`, `{"params":{"k":"postData","postDataX":1,"xpostData":2}}`},
		{`{"params":{"a\"postData":1}}`, `{"params":{"a\"postData":1}}`},
		{`{"params":{"\u0022":"\u0022","postData":"\u0022\\"}}`, `{"params":{"\u0022":"\u0022"}}`},
		{
			"{ \"params\" : {\n \"a\" : 1 ,\t\"postData\" : \"x\" , \"b\" : [ 2 ] , \"postDataEntries\" : [ ] } }",
			"{ \"params\" : {\n \"a\" : 1  , \"b\" : [ 2 ]  } }",
		},
		{`{"params":{"postData" : 7 ,"b":2}}`, `{"params":{ "b":2}}`},
	}
	for _, tt := range tests {
		for _, n := range []int{1, 2, 3, 7, 64, 1 << 20} {
			f := newPostDataFilter(chunkReader{strings.NewReader(tt.in), n})
			got, err := io.ReadAll(f)
			if err != nil {
				t.Fatalf("%s: %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Errorf("chunk %d:\n in   %s\n got  %s\n want %s", n, tt.in, got, tt.want)
			}
		}
	}
}

func TestPostDataFilterOneByte(t *testing.T) {
	in := `{"method":"a","params":{"request":{"postData":"x\\\"y","hasPostData":true}}}`
	got, err := io.ReadAll(iotest.OneByteReader(newPostDataFilter(iotest.HalfReader(strings.NewReader(in)))))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"method":"a","params":{"request":{"hasPostData":true}}}`; string(got) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

func TestDecodeMessage(t *testing.T) {
	m, err := decodeMessage(strings.NewReader(`{"id":7,"sessionId":"S","result":{"a":[1,2]},"extra":{"x":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !m.hasID || m.id != 7 || m.sessionID != "S" || string(m.result) != `{"a":[1,2]}` {
		t.Fatalf("bad reply: %+v", m)
	}

	m, err = decodeMessage(strings.NewReader(`{"id":8,"error":{"code":-32601,"message":"'X.y' wasn't found","data":"d"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m.err == nil || m.err.Code != -32601 || m.err.Message != "'X.y' wasn't found" {
		t.Fatalf("bad error reply: %+v", m)
	}

	m, err = decodeMessage(strings.NewReader(`{"method":"Fetch.requestPaused","params":{"request":{"postData":"zz","hasPostData":true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	var params any
	if err := jsonv2.Unmarshal(m.params, &params); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"request": map[string]any{"hasPostData": true}}
	if m.hasID || m.method != "Fetch.requestPaused" || !reflect.DeepEqual(params, want) {
		t.Fatalf("bad event: %+v %v", m, params)
	}

	for _, bad := range []string{`[1]`, `{"id":`, `{"id":"x"}`, `nope`, ``} {
		if _, err := decodeMessage(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestScanStringLinear(t *testing.T) {
	// Many escapes before a far quote must not rescan: this would take
	// minutes if scanString were quadratic.
	b := bytes.Repeat([]byte(`ab\"`), 1<<20)
	b = append(b, `end"tail`...)
	esc := false
	n, closed := scanString(b, &esc)
	if !closed || string(b[n:]) != "tail" {
		t.Fatalf("n=%d closed=%v", n, closed)
	}
}

// decodeMessage decodes one message with a fresh msgDecoder.
func decodeMessage(r io.Reader) (message, error) {
	return new(msgDecoder).decode(r)
}

func newPostDataFilter(r io.Reader) *postDataFilter {
	f := new(postDataFilter)
	f.reset(r)
	return f
}
