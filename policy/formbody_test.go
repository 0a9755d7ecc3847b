package policy

import (
	"bytes"
	"mime/multipart"
	"net/url"
	"strings"
	"testing"
)

const formType = "application/x-www-form-urlencoded"

func urlBody(s string) *Body { return &Body{ContentType: formType, Parts: [][]byte{[]byte(s)}} }

func multipartBody(t testing.TB, fields [][2]string) *Body {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Split as Chrome hands bodies over: in several entries.
	b := buf.Bytes()
	return &Body{ContentType: w.FormDataContentType(), Parts: [][]byte{b[:len(b)/2], b[len(b)/2:]}}
}

func TestFormFields(t *testing.T) {
	names := map[string]bool{"is_draft": true, "publish": true}
	got, err := FormFields(formType, []byte("title=Hello+world&is_draft=1&body=a%26b&is%5Fdraft=0&&publish"), names)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got["is_draft"], ",") != "1,0" || strings.Join(got["publish"], ",") != "" || len(got["publish"]) != 1 || got["title"] != nil {
		t.Errorf("url-encoded: %q", got)
	}
	mp := multipartBody(t, [][2]string{{"title", "x"}, {"is_draft", "0"}, {"file", strings.Repeat("z", 10000)}})
	got, err = FormFields(mp.ContentType, bytes.Join(mp.Parts, nil), names)
	if err != nil || strings.Join(got["is_draft"], ",") != "0" {
		t.Errorf("multipart: %q %v", got, err)
	}
	for _, bad := range []struct{ typ, body string }{
		{"text/plain", "is_draft=1\r\n"},
		{"", "is_draft=1"},
		{"multipart/form-data", "--x\r\n"},
		{"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"is_draft\"\r\n\r\n1"},
		{formType, "is_draft=%zz"},
		{formType, "is_draft=" + strings.Repeat("1", maxFieldValue+1)},
		{formType, strings.Repeat("publish=1&", maxFieldValues+1)},
	} {
		if _, err := FormFields(bad.typ, []byte(bad.body), names); err == nil {
			t.Errorf("%q %q read without an error", bad.typ, bad.body)
		}
	}
}

func TestApprovedFormCheck(t *testing.T) {
	draft := &ApprovedForm{Fields: map[string][]string{"is_draft": {"1"}, "publish": {}}}
	cases := []struct {
		name   string
		body   *Body
		reason string
	}{
		{"the approved draft", urlBody("title=x&is_draft=1"), ""},
		{"the approved draft, multipart", multipartBody(t, [][2]string{{"title", "x"}, {"is_draft", "1"}}), ""},
		{"flipped radio", urlBody("title=x&is_draft=0"), ReasonPublishStateChanged},
		{"flipped radio, multipart", multipartBody(t, [][2]string{{"is_draft", "0"}}), ReasonPublishStateChanged},
		{"ticked checkbox", urlBody("is_draft=1&publish=on"), ReasonPublishStateChanged},
		{"a second value appended", urlBody("is_draft=1&is_draft=0"), ReasonPublishStateChanged},
		{"the field dropped", urlBody("title=x"), ReasonPublishStateChanged},
		{"escaped name", urlBody("is_draft=1&publis%68=1"), ReasonPublishStateChanged},
		{"text/plain", &Body{ContentType: "text/plain", Parts: [][]byte{[]byte("is_draft=1\r\n")}}, ReasonBodyUnreadable},
		{"not handed over", &Body{ContentType: formType, Unread: true}, ReasonBodyUnreadable},
		{"no body", nil, ReasonBodyUnreadable},
	}
	for _, c := range cases {
		b := Body{Unread: true}
		if c.body != nil {
			b = *c.body
		}
		reason, detail := draft.Check(b)
		if reason != c.reason {
			t.Errorf("%s: reason %q (%s), want %q", c.name, reason, detail, c.reason)
		}
		if reason == ReasonPublishStateChanged && !strings.Contains(detail, "approved as") {
			t.Errorf("%s: detail %q", c.name, detail)
		}
	}
	var none *ApprovedForm
	if r, _ := none.Check(Body{Unread: true}); r != "" {
		t.Errorf("no approved form checks nothing: %q", r)
	}
}

// TestJudgeApprovedForm: a credit approved with a publish state pays only
// for a body that sends it; a refused body leaves the credit for the
// approved send.
func TestJudgeApprovedForm(t *testing.T) {
	e := newEnv(t)
	form := &ApprovedForm{Fields: map[string][]string{"is_draft": {"1"}}}
	if err := e.g.Grant("s1", ScopeOf(shop), Submit, GrantOptions{Channel: ChannelElicit, Tab: "t1", Form: &ApprovedForm{}}); err != nil {
		t.Fatal(err)
	}
	if !e.g.Bind("s1", ScopeOf(shop), Submit, "t1", form) {
		t.Fatal("Bind found no live credit")
	}
	judge := func(body *Body) Verdict {
		e.body = body
		return Judge(Judgement{Class: Classify(post("https://shop.example/save"), shop), Session: "s1", Grants: e.g, Now: e.clk.Now(), Tab: "t1", Body: body})
	}
	v := judge(urlBody("is_draft=0"))
	if v.Allow || v.Reason != ReasonPublishStateChanged || v.Spent != "" || !strings.Contains(v.Fields()["body_mismatch"].(string), `"is_draft"`) {
		t.Errorf("a flipped body: %+v", v)
	}
	if v := judge(&Body{ContentType: "text/plain", Parts: [][]byte{[]byte("is_draft=1")}}); v.Allow || v.Reason != ReasonBodyUnreadable || v.Spent != "" {
		t.Errorf("a body the guard cannot read a form from: %+v", v)
	}
	if v := judge(urlBody("is_draft=1")); !v.Allow || v.Spent != Submit {
		t.Errorf("the approved body: %+v", v)
	}
	if e.g.Bind("s1", ScopeOf(shop), Submit, "t1", form) {
		t.Error("Bind on a spent credit")
	}
}

// FuzzFormFields: whatever the body, FormFields never panics and keeps
// within its bounds, and a url-encoded body that url.ParseQuery reads
// gives the same values for the names asked.
func FuzzFormFields(f *testing.F) {
	f.Add(formType, []byte("a=1&is_draft=0&is_draft=1"))
	f.Add(formType, []byte("is%5Fdraft=%30&+=+"))
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"is_draft\"\r\n\r\n1\r\n--x--\r\n"))
	f.Add("multipart/form-data; boundary=x", []byte("--x\r\nContent-Disposition: form-data; name=\"is_draft\"; filename=\"a\"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=30\r\n--x--\r\n"))
	f.Add("text/plain", []byte("is_draft=1"))
	f.Fuzz(func(t *testing.T, typ string, body []byte) {
		names := map[string]bool{"is_draft": true, "": true}
		got, err := FormFields(typ, body, names)
		if err != nil {
			return
		}
		for n, vs := range got {
			if !names[n] || len(vs) > maxFieldValues {
				t.Fatalf("kept %q: %d values", n, len(vs))
			}
			for _, v := range vs {
				if len(v) > maxFieldValue {
					t.Fatalf("a value of %d bytes", len(v))
				}
			}
		}
		if typ == formType && !bytes.Contains(body, []byte(";")) {
			q, qerr := url.ParseQuery(string(body))
			if qerr == nil && strings.Join(q["is_draft"], "\x00") != strings.Join(got["is_draft"], "\x00") {
				t.Fatalf("is_draft: %q, url.ParseQuery reads %q", got["is_draft"], q["is_draft"])
			}
		}
	})
}
