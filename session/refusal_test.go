package session

import (
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/policy"
)

// A refusal of a page's 2 MB URL is kept at about 2 KB, still answers with
// the origin it was going to, and still tells a long issuer from another
// that shares its first 2 KB.
func TestRefusalsKeepURLsCut(t *testing.T) {
	pad := strings.Repeat("x", 2<<20)
	tab := cdpguard.Target{ID: "tab"}
	before := "https://a.test/" + pad + "?page=1"
	r := newRefusal(cdpguard.Request{
		TargetID: "tab", TabID: "tab", URL: "https://b.test/" + pad, RedirectFrom: "https://a.test/" + pad,
		Issuer: before, NetworkID: "L1",
	}, cdpguard.Verdict{Reason: policy.ReasonNotGranted})
	if size := len(r.URL) + len(r.RedirectFrom) + len(r.Issuer); size > 3*(audit.URLMax+32) {
		t.Errorf("a refusal keeps %d bytes of URLs", size)
	}
	if got := policy.ScopeOf(r.URL).Loggable(); got != "https://b.test" {
		t.Errorf("a cut refusal answers %q", got)
	}
	b := &Browser{}
	a := &act{b: b, tab: tab, start: time.Now().Add(-time.Second)}
	b.refused.add(r)
	if a.refusedNavigation("", before) != nil {
		t.Error("a refusal issued by the document the action began on was taken for the navigation's")
	}
	if a.refusedNavigation("", "https://a.test/"+pad+"?page=2") == nil {
		t.Error("a refusal issued by another document with the same first 2 KB was missed")
	}
}
