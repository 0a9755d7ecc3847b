package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// ApprovedForm is the publish state a declared send was approved with:
// for each field name of the form's publish controls (the radios and
// checkboxes that make the item public or keep it private), the values the
// form sends under it, sorted. It rides on the single-use credit the send
// spends (GrantOptions.Form), and Judge lets that credit pay only for a
// body that sends exactly these values under these names.
type ApprovedForm struct {
	Fields map[string][]string
}

// Body is a request's body as the guard was handed it.
type Body struct {
	ContentType string   // the request's Content-Type header
	Parts       [][]byte // the body, in the pieces the browser handed over
	// Unread: the request has a body that was not handed over, whole or in
	// part (a file or a stream the browser keeps to itself).
	Unread bool
}

// Reasons of a declared send refused for what its body says.
const (
	// ReasonPublishStateChanged: the body sends another publish state than
	// the one approved (a page's submit handler ticked "Publish").
	ReasonPublishStateChanged = "publish_state_changed"
	// ReasonBodyUnreadable: the guard cannot read the publish state out of
	// the body (a file it was not handed, text/plain, malformed), so it
	// cannot tell that the send keeps what was approved.
	ReasonBodyUnreadable = "body_unreadable"
	// ReasonSendUnchecked: a declared send held to a publish state that
	// the check in the page that sends it did not pass (a page that keeps
	// the formdata event from it).
	ReasonSendUnchecked = "send_unchecked"
)

// Bounds of what FormFields keeps: a publish field's value is a word, and
// a form repeats a field a few times at most.
const (
	maxFieldValue  = 4096
	maxFieldValues = 64
)

// Check says whether b sends what f approved. It answers "" when it does,
// else a Reason (ReasonPublishStateChanged, ReasonBodyUnreadable) and a
// line for the reply and the audit (field names and values cut and
// quoted, page text never trusted).
func (f *ApprovedForm) Check(b Body) (reason, detail string) {
	if f == nil || len(f.Fields) == 0 {
		return "", ""
	}
	if b.Unread {
		return ReasonBodyUnreadable, "the browser did not hand the whole body over (a file or a stream)"
	}
	names := make(map[string]bool, len(f.Fields))
	for n := range f.Fields {
		names[n] = true
	}
	data := bytes.Join(b.Parts, nil)
	if len(b.Parts) == 1 {
		data = b.Parts[0]
	}
	sent, err := FormFields(b.ContentType, data, names)
	if err != nil {
		return ReasonBodyUnreadable, err.Error()
	}
	keys := make([]string, 0, len(f.Fields))
	for n := range f.Fields {
		keys = append(keys, n)
	}
	slices.Sort(keys)
	for _, n := range keys {
		want := slices.Clone(f.Fields[n])
		got := sent[n]
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			return ReasonPublishStateChanged, fmt.Sprintf("%s sent as %s, approved as %s", quoteField(n), quoteValues(got), quoteValues(want))
		}
	}
	return "", ""
}

// FormFields reads, from a form body of contentType, the values sent
// under each of names, in the order sent. It reads
// application/x-www-form-urlencoded and multipart/form-data, the two
// encodings a form posts in that a server reads fields from; anything else
// (text/plain, which no server can read unambiguously, or no type at all)
// is an error, as is a body that does not parse, a value over 4 KiB, or a
// name sent more than 64 times.
func FormFields(contentType string, body []byte, names map[string]bool) (map[string][]string, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, fmt.Errorf("the body's type %s cannot be read", quoteField(contentType))
	}
	out := map[string][]string{}
	add := func(name string, value []byte) error {
		if len(value) > maxFieldValue {
			return fmt.Errorf("%s is sent with a value over %d bytes", quoteField(name), maxFieldValue)
		}
		if len(out[name]) >= maxFieldValues {
			return fmt.Errorf("%s is sent over %d times", quoteField(name), maxFieldValues)
		}
		out[name] = append(out[name], string(value))
		return nil
	}
	switch mt {
	case "application/x-www-form-urlencoded":
		for len(body) > 0 {
			var pair []byte
			pair, body, _ = bytes.Cut(body, []byte("&"))
			if len(pair) == 0 {
				continue
			}
			k, v, _ := bytes.Cut(pair, []byte("="))
			name, err := url.QueryUnescape(string(k))
			if err != nil {
				return nil, errors.New("the url-encoded body has a malformed field name")
			}
			if !names[name] {
				continue
			}
			value, err := url.QueryUnescape(string(v))
			if err != nil {
				return nil, fmt.Errorf("the url-encoded body has a malformed value for %s", quoteField(name))
			}
			if err := add(name, []byte(value)); err != nil {
				return nil, err
			}
		}
		return out, nil
	case "multipart/form-data":
		boundary := params["boundary"]
		if boundary == "" {
			return nil, errors.New("the multipart body names no boundary")
		}
		r := multipart.NewReader(bytes.NewReader(body), boundary)
		for {
			// NextRawPart: the body as sent, never decoded on the way
			// (a server reads a form's parts as they are).
			p, err := r.NextRawPart()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return nil, errors.New("the multipart body does not parse: " + err.Error())
			}
			name := p.FormName()
			if name == "" {
				return nil, errors.New("the multipart body has a part with no field name")
			}
			if !names[name] {
				if _, err := io.Copy(io.Discard, p); err != nil {
					return nil, errors.New("the multipart body does not parse: " + err.Error())
				}
				continue
			}
			v, err := io.ReadAll(io.LimitReader(p, maxFieldValue+1))
			if err != nil {
				return nil, errors.New("the multipart body does not parse: " + err.Error())
			}
			if err := add(name, v); err != nil {
				return nil, err
			}
			if _, err := io.Copy(io.Discard, p); err != nil {
				return nil, errors.New("the multipart body does not parse: " + err.Error())
			}
		}
	case "":
		return nil, errors.New("the body has no type")
	}
	return nil, fmt.Errorf("the body is sent as %s, which the guard does not read a form from", quoteField(mt))
}

// quoteField quotes a name or value taken from a page, cut to 60 bytes.
func quoteField(s string) string {
	if len(s) > 60 {
		s = s[:60]
	}
	return strconv.QuoteToASCII(s)
}

func quoteValues(vs []string) string {
	if len(vs) == 0 {
		return "nothing"
	}
	q := make([]string, 0, len(vs))
	for i, v := range vs {
		if i == 4 {
			q = append(q, fmt.Sprintf("and %d more", len(vs)-i))
			break
		}
		q = append(q, quoteField(v))
	}
	return strings.Join(q, ", ")
}
