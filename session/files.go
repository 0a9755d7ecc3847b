package session

import (
	"os"
	"path/filepath"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/policy"
)

// filePlaces is what policy's file: judgement knows of this machine:
// lyrad's data directory is never opened, its download directory may be.
func (m *Manager) filePlaces() policy.Places {
	var p policy.Places
	for _, d := range []string{m.cfg.DataDir} {
		if d != "" {
			p.Private = append(p.Private, d, resolvedDir(d))
		}
	}
	if d := m.cfg.DownloadDir; d != "" {
		p.Open = append(p.Open, d, resolvedDir(d))
	}
	return p
}

// fileRefusal is why the file: URL rawURL is never opened, or "": the
// policy's reading of its path, then the disk's, where a symbolic link
// leads and whether it is a directory (Chrome lists a directory whatever
// the URL's spelling).
func (m *Manager) fileRefusal(rawURL string) string {
	places := m.filePlaces()
	if r := places.Refusal(rawURL); r != "" {
		return r
	}
	p, _, _ := policy.FilePath(rawURL)
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "" // nothing there: the load fails by itself
	}
	if r := places.PathRefusal(filepath.ToSlash(real)); r != "" {
		return r
	}
	if st, err := os.Stat(real); err == nil && st.IsDir() {
		return policy.ReasonFileDirectory
	}
	return ""
}

// decideFileLoad is the guard's answer to a file: subresource (an image,
// script, style, fetch or XHR of a file: page): refused (in observe mode,
// recorded would_deny, unless it is a place never opened). The file that
// was approved is the document; what it pulls in from the disk around it
// was not.
func (m *Manager) decideFileLoad(r cdpguard.Request) cdpguard.Verdict {
	reason := m.fileRefusal(r.URL)
	never := reason != ""
	if !never {
		reason = policy.ReasonFileSubresource
	}
	fields := map[string]any{"kind": "send", "reason": reason, "destination": policy.LoggableURL(r.URL)}
	if t := m.takeover.active(m.current()); t != nil {
		fields["during_takeover"] = true
	}
	if !never && m.cfg.Enforcement == policy.Observe {
		fields["would_deny"] = true // observe refuses nothing but the never-opened places
		return cdpguard.Verdict{Allow: true, Reason: reason, Fields: fields}
	}
	return cdpguard.Verdict{Allow: false, Reason: reason, Fields: fields}
}

// fileRefusalOf is fileRefusal for a classified document request, "" for
// any other kind.
func (m *Manager) fileRefusalOf(c policy.Classification, rawURL string) string {
	if c.Kind != policy.File {
		return ""
	}
	return m.fileRefusal(rawURL)
}

// fileRefused is navigate's answer for a file: URL that is never opened.
func fileRefused(rawURL, reason string) error {
	what := "under a dot directory, lyrad's data or a system or secret store"
	if reason == policy.ReasonFileDirectory {
		what = "a directory listing"
	}
	return newError(StatusBlocked, policy.LoggableURL(rawURL)+" is "+what+": file: pages never open it, whatever is approved",
		"Open one ordinary file, e.g. a file in the download directory; ask the user to copy what you need there.").because(reason)
}
