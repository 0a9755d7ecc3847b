package policy

import "strings"

// Request is a document request as the judgement sees it: never its body,
// only whether it has one.
type Request struct {
	URL     string
	Method  string // "" reads as GET
	HasBody bool
	// IsRedirect marks a redirect hop; RedirectFrom is the URL of the hop
	// whose response sent the browser here, RedirectStatus its status
	// (0 when unknown).
	IsRedirect     bool
	RedirectFrom   string
	RedirectStatus int
	// InSubframe marks a document request of an iframe. The zero value is a
	// main-frame request, which is the one judged most strictly: a caller
	// that does not know gets the safe answer.
	InSubframe bool
	// URLBytes is the length of the request's URL; 0 reads as len(URL).
	URLBytes int
	// Sender is the origin the browser says started the request (its Origin
	// header): "null" for a document with an opaque origin, "" when the
	// browser did not say. A Submission is paid for by its sender; without
	// one it falls back to the issuing document.
	Sender string
}

// MaxDocumentURL is the longest document URL the guard lets through (256
// KiB). The browser takes up to 2 MiB, but no page needs a document URL of
// that size, and each one costs the browser megabytes of DevTools events per
// frame: a page loading iframes at 2 MiB URLs slows the browser to a crawl.
const MaxDocumentURL = 256 << 10

// Kind is what a request does, in permission terms.
type Kind string

const (
	// Interaction: a GET navigation that stays on the origin of the document
	// that issues it. Needs INTERACT there (NAVIGATE implies it).
	Interaction Kind = "interaction"
	// Submission: a body, or any method but GET and HEAD. Needs a SUBMIT
	// credit on the origin that sends it, wherever it goes.
	Submission Kind = "submission"
	// Leaving: a main-frame GET to another origin, to an opaque URL, or from
	// no document at all (the browser's own first load). Needs NAVIGATE on
	// the destination.
	Leaving Kind = "leaving"
	// RedirectSameOrigin: a redirect hop that stays on the origin that
	// issued it, or only upgrades it from http to https on default ports.
	// It is the request carrying on and is not judged again.
	RedirectSameOrigin Kind = "redirect_same_origin"
	// Embed: a GET document load inside an iframe. A page composing itself
	// from maps, videos and widgets is not the user going anywhere; it is
	// let through and recorded.
	Embed Kind = "embed"
	// File: a GET of a file: URL, by any frame. Needs NAVIGATE on that one
	// exact URL; some places are refused whatever was approved (files.go).
	File Kind = "file"
)

// Classification is a classified request: what it is, and where the
// capability it needs must be held.
type Classification struct {
	Kind Kind
	// Capability is what the request needs: INTERACT, NAVIGATE or SUBMIT
	// (for a Submission, a declared PUBLISH may stand in). Empty for the
	// kinds that are not judged.
	Capability Capability
	// Subject is where Capability must be held: the destination, except for
	// a Submission, which is authorised by the document that sends it.
	Subject Scope
	// Destination is where the request goes.
	Destination Scope
	// Method and HasBody are what the request carries once a redirect's
	// status has been applied.
	Method  string
	HasBody bool
	// RedirectFrom is the previous hop of a redirect, as the request gave it.
	RedirectFrom string
	// CrossOriginSend names the destination of a Submission that leaves its
	// sender's origin. It is a label for the audit, not a capability: the
	// sender's credit pays for it and nothing is asked of the destination.
	CrossOriginSend string
	// TooLong marks a document URL over MaxDocumentURL: it is refused,
	// whatever else it is.
	TooLong bool
	// NoSender marks a Submission whose sender has no origin that could hold
	// a grant (an opaque document: data:, sandboxed, file:). Subject is then
	// zero, and nothing can pay for it.
	NoSender bool
}

// Classify says what r would do. current is the URL of the document that
// issues it (for a popup's first load, its opener's; for an iframe, the
// frame's own), or "" for a load the browser starts itself.
//
// A redirect hop is classified as the navigation it leads to, with the
// method and body the browser will send: 307 and 308 keep both, 301 and 302
// turn a POST into a body-less GET, 303 turns anything but GET or HEAD into
// one. A hop that stays on the origin of the previous hop, or upgrades it
// from http to https on the same host and default ports, is
// RedirectSameOrigin.
func Classify(r Request, current string) Classification {
	method, body := effective(r)
	dest := ScopeOf(r.URL)
	n := r.URLBytes
	if n == 0 {
		n = len(r.URL)
	}
	c := Classification{
		Destination:  dest,
		Method:       method,
		HasBody:      body,
		RedirectFrom: r.RedirectFrom,
		TooLong:      n > MaxDocumentURL,
	}
	if (r.IsRedirect || r.RedirectFrom != "") && staysPut(r.RedirectFrom, r.URL) {
		c.Kind = RedirectSameOrigin
		c.Subject = dest
		return c
	}
	if body || (method != "GET" && method != "HEAD") {
		c.Kind, c.Capability = Submission, Submit
		// The sender pays: the origin the browser says started the request,
		// else the document that issues it. A sender with no origin of its
		// own cannot lend one, and nobody else may pay for what it sends.
		sender, ok := senderOf(r.Sender, current)
		if !ok {
			c.NoSender = true
			return c
		}
		c.Subject = sender.Scope()
		if c.Subject != dest {
			c.CrossOriginSend = dest.Loggable()
		}
		return c
	}
	c.Subject = dest
	if IsFileURL(r.URL) {
		// Not an Embed: every file on the disk would be one frame away.
		c.Kind, c.Capability = File, Navigate
		return c
	}
	if r.InSubframe {
		c.Kind = Embed
		return c
	}
	cur, ok1 := OriginOf(current)
	to, ok2 := dest.Origin()
	if ok1 && ok2 && cur == to {
		c.Kind, c.Capability = Interaction, Interact
	} else {
		c.Kind, c.Capability = Leaving, Navigate
	}
	return c
}

// effective applies a redirect's status to the method and body, as the
// browser does (Fetch standard, HTTP-redirect fetch).
func effective(r Request) (method string, body bool) {
	method = strings.ToUpper(strings.TrimSpace(r.Method))
	if method == "" {
		method = "GET"
	}
	body = r.HasBody
	switch r.RedirectStatus {
	case 301, 302:
		if method == "POST" {
			method, body = "GET", false
		}
	case 303:
		if method != "GET" && method != "HEAD" {
			method, body = "GET", false
		}
	}
	return method, body
}

// staysPut reports whether a hop from -> to stays with the origin that
// issued it: the same origin, or http upgraded to https on the same host and
// the default ports. Whoever approved http://example.com did not mean to
// refuse the secure side of it; the reverse, and any other port, is
// somewhere new. Opaque URLs never stay put.
func staysPut(from, to string) bool {
	f, ok1 := OriginOf(from)
	t, ok2 := OriginOf(to)
	if !ok1 || !ok2 {
		return false
	}
	if f == t {
		return true
	}
	return f.Scheme == "http" && f.Port == 80 && t.Scheme == "https" && t.Port == 443 && f.Host == t.Host
}

// senderOf is the origin that pays for a submission: the browser's word
// (Origin header) when it gave one, else the issuing document's.
func senderOf(header, current string) (Origin, bool) {
	if header != "" {
		return OriginOf(header) // "null" has none
	}
	return OriginOf(current)
}
