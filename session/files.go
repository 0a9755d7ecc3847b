package session

import (
	"os"
	"path/filepath"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/policy"
)

// fileRules is what lyrad knows of this machine's files when a file: URL
// is loaded: lyrad's data directory is never opened, its download
// directory may be. Set by New and read-only after, so it needs no lock.
type fileRules struct {
	dataDir     string
	downloadDir string
	observe     bool // observe mode: refuse only the places never opened
}

func newFileRules(cfg Config) fileRules {
	return fileRules{dataDir: cfg.Data.Root(), downloadDir: cfg.DownloadDir, observe: cfg.Enforcement == policy.Observe}
}

// places is what policy's file: judgement knows of this machine. The
// directories are resolved at each call: one may be created, or linked
// elsewhere, while lyrad runs.
func (f fileRules) places() policy.Places {
	var p policy.Places
	for _, d := range []string{f.dataDir} {
		if d != "" {
			p.Private = append(p.Private, d, resolvedDir(d))
		}
	}
	if d := f.downloadDir; d != "" {
		p.Open = append(p.Open, d, resolvedDir(d))
	}
	return p
}

// refusal is why the file: URL rawURL is never opened, or "": the
// policy's reading of its path, then the disk's, where a symbolic link
// leads and whether it is a directory (Chrome lists a directory whatever
// the URL's spelling).
func (f fileRules) refusal(rawURL string) string {
	places := f.places()
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

// decideLoad is the guard's answer to a file: subresource (an image,
// script, style, fetch or XHR of a file: page): refused (in observe mode,
// recorded would_deny, unless it is a place never opened). The file that
// was approved is the document; what it pulls in from the disk around it
// was not.
func (f fileRules) decideLoad(r cdpguard.Request, duringTakeover bool) cdpguard.Verdict {
	reason := f.refusal(r.URL)
	never := reason != ""
	if !never {
		reason = policy.ReasonFileSubresource
	}
	fields := audit.Fields{"kind": "send", "reason": reason, "destination": policy.LoggableURL(r.URL)}
	if duringTakeover {
		fields["during_takeover"] = true
	}
	if !never && f.observe {
		fields["would_deny"] = true // observe refuses nothing but the never-opened places
		return cdpguard.Verdict{Allow: true, Reason: reason, Fields: fields}
	}
	return cdpguard.Verdict{Allow: false, Reason: reason, Fields: fields}
}

// refusalOf is refusal for a classified document request, "" for any
// other kind.
func (f fileRules) refusalOf(c policy.Classification, rawURL string) string {
	if c.Kind != policy.File {
		return ""
	}
	return f.refusal(rawURL)
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
