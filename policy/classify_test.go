package policy

import (
	"fmt"
	"testing"
)

func TestClassify(t *testing.T) {
	const (
		page  = "https://shop.example/cart"
		away  = "https://pay.test/checkout"
		local = "http://127.0.0.1:8000/"
	)
	tests := []struct {
		name    string
		r       Request
		current string
		kind    Kind
		cap     Capability
		subject string
		send    string // CrossOriginSend
	}{
		// Where the line falls.
		{"same-origin link", Request{URL: "https://shop.example/item/1"}, page, Interaction, Interact, "https://shop.example", ""},
		{"search box: a GET with the query is interaction", Request{URL: "https://shop.example/search?q=secret+words", Method: "GET"}, page, Interaction, Interact, "https://shop.example", ""},
		{"method case and blanks", Request{URL: "https://shop.example/", Method: " get "}, page, Interaction, Interact, "https://shop.example", ""},
		{"HEAD is not a send", Request{URL: "https://shop.example/", Method: "HEAD"}, page, Interaction, Interact, "https://shop.example", ""},
		{"POST with a body is a submission", Request{URL: "https://shop.example/order", Method: "POST", HasBody: true}, page, Submission, Submit, "https://shop.example", ""},
		{"POST without a body is still a submission", Request{URL: "https://shop.example/order", Method: "POST"}, page, Submission, Submit, "https://shop.example", ""},
		{"PUT", Request{URL: "https://shop.example/x", Method: "PUT"}, page, Submission, Submit, "https://shop.example", ""},
		{"PATCH", Request{URL: "https://shop.example/x", Method: "patch"}, page, Submission, Submit, "https://shop.example", ""},
		{"DELETE", Request{URL: "https://shop.example/x", Method: "DELETE"}, page, Submission, Submit, "https://shop.example", ""},
		{"an unknown method fails closed", Request{URL: "https://shop.example/x", Method: "PROPFIND"}, page, Submission, Submit, "https://shop.example", ""},
		{"a GET with a body is a send", Request{URL: "https://shop.example/x", HasBody: true}, page, Submission, Submit, "https://shop.example", ""},
		{"a cross-origin form action is paid by the sender", Request{URL: away, Method: "POST", HasBody: true}, page, Submission, Submit, "https://shop.example", "https://pay.test"},
		{"leaving for another host", Request{URL: away}, page, Leaving, Navigate, "https://pay.test", ""},
		{"a site bouncing to its own subdomain is leaving", Request{URL: "https://www.shop.example/"}, page, Leaving, Navigate, "https://www.shop.example", ""},
		{"another port is another site", Request{URL: "https://shop.example:8443/"}, page, Leaving, Navigate, "https://shop.example:8443", ""},
		{"http to https is another origin when not a redirect", Request{URL: "https://shop.example/"}, "http://shop.example/", Leaving, Navigate, "https://shop.example", ""},
		{"loopback addresses are different sites", Request{URL: "http://127.0.0.2:8000/"}, local, Leaving, Navigate, "http://127.0.0.2:8000", ""},
		{"localhost is not 127.0.0.1", Request{URL: "http://localhost:8000/"}, local, Leaving, Navigate, "http://localhost:8000", ""},
		{"the browser's own first load", Request{URL: "https://shop.example/"}, "", Leaving, Navigate, "https://shop.example", ""},
		{"a popup from about:blank", Request{URL: "https://shop.example/"}, "about:blank", Leaving, Navigate, "https://shop.example", ""},
		// URLs with no host are never the same site, not even as themselves.
		{"file: to the same file: URL", Request{URL: "file:///home/u/a.html"}, "file:///home/u/a.html", File, Navigate, "file:///home/u/a.html", ""},
		{"file: to another file:", Request{URL: "file:///etc/passwd"}, "file:///home/u/a.html", File, Navigate, "file:///etc/passwd", ""},
		{"an iframe of a file: page loading another file", Request{URL: "file:///home/u/.ssh/id_rsa", InSubframe: true}, "file:///home/u/a.html", File, Navigate, "file:///home/u/.ssh/id_rsa", ""},
		{"a site to file:", Request{URL: "file:///etc/passwd"}, page, File, Navigate, "file:///etc/passwd", ""},
		{"data: to data:", Request{URL: "data:text/html,hi"}, "data:text/html,hi", Leaving, Navigate, "data:text/html,hi", ""},
		{"a file: page posting has no sender to pay", Request{URL: "https://shop.example/x", Method: "POST", HasBody: true}, "file:///home/u/a.html", Submission, Submit, "", ""},
		{"an about:blank frame cannot lend an origin", Request{URL: away, Method: "POST", HasBody: true, InSubframe: true}, "about:blank", Submission, Submit, "", ""},
		// The browser's word on the sender wins over the frame navigated.
		{"a cross-site iframe posting to the top frame pays itself", Request{URL: away, Method: "POST", HasBody: true, Sender: "https://ads.test"}, page, Submission, Submit, "https://ads.test", "https://pay.test"},
		{"a popup's first load posted by its opener pays at the opener", Request{URL: away, Method: "POST", HasBody: true, Sender: "https://shop.example"}, "", Submission, Submit, "https://shop.example", "https://pay.test"},
		{"an opaque sender cannot pay", Request{URL: away, Method: "POST", HasBody: true, Sender: "null"}, page, Submission, Submit, "", ""},
		{"a redirect hop keeps its chain's sender", Request{URL: away, Method: "POST", HasBody: true, IsRedirect: true, RedirectStatus: 307, RedirectFrom: "https://shop.example/post", Sender: "https://shop.example"}, away, Submission, Submit, "https://shop.example", "https://pay.test"},
		// Frames.
		{"an iframe loading a cross-site document is an embed", Request{URL: "https://maps.test/embed", InSubframe: true}, page, Embed, "", "https://maps.test", ""},
		{"a form in an iframe is still a send, paid by the frame", Request{URL: "https://shop.example/x", Method: "POST", HasBody: true, InSubframe: true}, "https://widget.test/form", Submission, Submit, "https://widget.test", "https://shop.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Classify(tt.r, tt.current)
			if c.Kind != tt.kind || c.Capability != tt.cap || c.Subject.String() != tt.subject || c.CrossOriginSend != tt.send {
				t.Errorf("Classify = %s %s on %q send %q; want %s %s on %q send %q",
					c.Kind, c.Capability, c.Subject, c.CrossOriginSend, tt.kind, tt.cap, tt.subject, tt.send)
			}
			if c.Destination != ScopeOf(tt.r.URL) {
				t.Errorf("Destination = %q, want %q", c.Destination, ScopeOf(tt.r.URL))
			}
		})
	}
}

// Every redirect code, with and without a body, to the same origin, to
// another, and to an upgrade.
func TestClassifyRedirects(t *testing.T) {
	const (
		page = "https://shop.example/form"
		from = "https://shop.example/post"
	)
	type hop struct {
		status  int
		method  string
		body    bool
		to      string
		kind    Kind
		subject string
		method2 string // effective method
	}
	tests := []hop{
		// A POST answered with a redirect to another origin.
		{301, "POST", true, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{302, "POST", true, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{303, "POST", true, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{307, "POST", true, "https://away.test/x", Submission, "https://shop.example", "POST"},
		{308, "POST", true, "https://away.test/x", Submission, "https://shop.example", "POST"},
		// A body-less POST keeps being a send on 307/308 only.
		{302, "POST", false, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{307, "POST", false, "https://away.test/x", Submission, "https://shop.example", "POST"},
		// A GET stays a GET whatever the code.
		{301, "GET", false, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{302, "GET", false, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{303, "GET", false, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{307, "GET", false, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{308, "GET", false, "https://away.test/x", Leaving, "https://away.test", "GET"},
		// 301/302 change only POST; 303 changes everything but GET/HEAD.
		{302, "PUT", true, "https://away.test/x", Submission, "https://shop.example", "PUT"},
		{303, "PUT", true, "https://away.test/x", Leaving, "https://away.test", "GET"},
		{303, "DELETE", false, "https://away.test/x", Leaving, "https://away.test", "GET"},
		// Status unknown: what the request carries decides.
		{0, "POST", true, "https://away.test/x", Submission, "https://shop.example", "POST"},
		{0, "GET", false, "https://away.test/x", Leaving, "https://away.test", "GET"},
		// A hop back to the page itself stays where it was.
		{302, "GET", false, page, RedirectSameOrigin, "https://shop.example", "GET"},
		// Hops that stay where they were are not judged, body or not.
		{301, "POST", true, "https://shop.example/post/", RedirectSameOrigin, "https://shop.example", "GET"},
		{302, "POST", true, "https://shop.example/done", RedirectSameOrigin, "https://shop.example", "GET"},
		{303, "POST", true, "https://shop.example/done", RedirectSameOrigin, "https://shop.example", "GET"},
		{307, "POST", true, "https://shop.example/post/", RedirectSameOrigin, "https://shop.example", "POST"},
		{308, "POST", true, "https://shop.example/post/", RedirectSameOrigin, "https://shop.example", "POST"},
		// https -> http is somewhere new.
		{301, "GET", false, "http://shop.example/", Leaving, "http://shop.example", "GET"},
		{307, "POST", true, "http://shop.example/", Submission, "https://shop.example", "POST"},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%d %s body=%v to %s", tt.status, tt.method, tt.body, tt.to)
		t.Run(name, func(t *testing.T) {
			r := Request{URL: tt.to, Method: tt.method, HasBody: tt.body, IsRedirect: true, RedirectFrom: from, RedirectStatus: tt.status}
			c := Classify(r, page)
			if c.Kind != tt.kind || c.Subject.String() != tt.subject || c.Method != tt.method2 {
				t.Errorf("got %s on %q method %s, want %s on %q method %s", c.Kind, c.Subject, c.Method, tt.kind, tt.subject, tt.method2)
			}
			if c.RedirectFrom != from {
				t.Errorf("RedirectFrom = %q", c.RedirectFrom)
			}
			if c.Kind == Submission && c.Destination.String() != c.Subject.String() && c.CrossOriginSend == "" {
				t.Error("a 307/308 that carries the body away is a cross_origin_send")
			}
		})
	}
}

// A form posted to another origin that redirects back to the page's own
// origin arrives home: that hop is interaction there, not leaving.
func TestClassifyHopBackHome(t *testing.T) {
	r := Request{URL: "https://shop.example/thanks", Method: "POST", HasBody: true, IsRedirect: true,
		RedirectFrom: "https://pay.test/charge", RedirectStatus: 303}
	c := Classify(r, "https://shop.example/cart")
	if c.Kind != Interaction || c.Subject.String() != "https://shop.example" {
		t.Errorf("got %s on %q", c.Kind, c.Subject)
	}
	r.InSubframe = true
	if c := Classify(r, "https://shop.example/cart"); c.Kind != Embed {
		t.Errorf("in a frame: got %s", c.Kind)
	}
}

// "A hop that stays with the origin that issued it (the same origin, or
// http->https of the same host on default ports) is not judged again."
func TestClassifyUpgradeHops(t *testing.T) {
	tests := []struct {
		from, to string
		stays    bool
	}{
		{"http://example.com/", "https://example.com/", true},
		{"http://example.com:80/a", "https://example.com:443/a", true},
		{"http://EXAMPLE.com/", "https://example.com/", true},
		{"https://example.com/a", "https://example.com/a/", true},
		{"https://example.com/", "http://example.com/", false},           // a downgrade
		{"http://example.com:8080/", "https://example.com/", false},      // non-default source port
		{"http://example.com/", "https://example.com:8443/", false},      // non-default target port
		{"http://example.com:8080/", "https://example.com:8080/", false}, // both non-default
		{"http://example.com/", "https://www.example.com/", false},       // another host
		{"http://localhost:3000/", "https://localhost:3000/", false},
		{"file:///a", "file:///a", false},   // opaque never stays put
		{"", "https://example.com/", false}, // hop source unknown
		{"about:blank", "https://example.com/", false},
	}
	for _, tt := range tests {
		r := Request{URL: tt.to, IsRedirect: true, RedirectFrom: tt.from, RedirectStatus: 301}
		c := Classify(r, "https://unrelated.test/")
		if got := c.Kind == RedirectSameOrigin; got != tt.stays {
			t.Errorf("%s -> %s: kind %s, stays=%v want %v", tt.from, tt.to, c.Kind, got, tt.stays)
		}
	}
}
