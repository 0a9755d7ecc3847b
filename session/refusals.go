package session

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
)

// Refusal is a request the guard refused. Its URLs are kept cut
// (newRefusal): a page can have thousands refused in the minute they are
// kept, each with a 2 MB URL.
type Refusal struct {
	At           time.Time
	TabID        target.ID // the tab (page target) the request belonged to
	URL          string    // the refused request's URL, cut (audit.CutURL)
	RedirectFrom string    // set when a redirect hop was refused, cut
	Reason       string
	MainFrame    bool   // the tab's own document would have moved (not an iframe's)
	NetworkID    string // the navigation's id (its loader id), kept over redirects
	Issuer       string // the document that issued it, as urlKey
	// MessageBytes: for a body the browser could not hand over
	// (cdpguard.ReasonBodyTooLarge), the size of the DevTools message it
	// dropped; -1 when unknown.
	MessageBytes int64
	// Capability is what was needed and not held; for a send refused for
	// its body (policy.ReasonPublishStateChanged, ReasonBodyUnreadable),
	// BodyMismatch says what it carried. CrossOrigin: a send going to
	// another site than its sender's (its origin).
	Capability   string
	BodyMismatch string
	CrossOrigin  string
}

// newRefusal keeps what a call needs of a refused request: the origin it
// was going to (a cut URL keeps it), whether it was a redirect hop, and who
// issued it, to compare.
func newRefusal(r cdpguard.Request, v cdpguard.Verdict) Refusal {
	size, ok := v.Fields["message_bytes"].(int64)
	if !ok {
		size = -1
	}
	x := Refusal{At: time.Now(), TabID: r.TabID, URL: audit.CutURL(r.URL), RedirectFrom: audit.CutURL(r.RedirectFrom),
		Reason: v.Reason, MainFrame: r.TargetID == r.TabID && !r.InSubframe, NetworkID: r.NetworkID, Issuer: urlKey(r.Issuer),
		MessageBytes: size}
	x.Capability, _ = v.Fields["capability"].(string)
	x.BodyMismatch, _ = v.Fields["body_mismatch"].(string)
	x.CrossOrigin, _ = v.Fields["cross_origin_send"].(string)
	return x
}

// urlKey is a URL small enough to keep that still tells two long URLs
// apart: a URL over audit.URLMax is cut and followed by a digest of the
// whole. Never written down: the digest of a URL with a short secret in it
// would give the secret away.
func urlKey(u string) string {
	if len(u) <= audit.URLMax {
		return u
	}
	h := sha256.Sum256([]byte(u))
	return audit.CutURL(u) + hex.EncodeToString(h[:12])
}

// refusals remembers recent refusals per browser so a call can tell that a
// navigation it set off was refused.
type refusals struct {
	mu   sync.Mutex
	list []Refusal
}

func (r *refusals) add(x Refusal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Keep the last minute; calls look back a few seconds at most.
	cut := 0
	for cut < len(r.list) && time.Since(r.list[cut].At) > time.Minute {
		cut++
	}
	r.list = append(r.list[cut:], x)
}

// since returns refusals at or after t on any of the tabs.
func (r *refusals) since(t time.Time, tabs ...target.ID) []Refusal {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Refusal
	for _, x := range r.list {
		if x.At.Before(t) {
			continue
		}
		for _, id := range tabs {
			if x.TabID == id {
				out = append(out, x)
				break
			}
		}
	}
	return out
}
