package policy

import (
	"net/url"
	"path"
	"strings"
)

// # file: documents
//
// A file: URL is its own kind (File), whether the main frame, an iframe, an
// object or embed loads it: it needs NAVIGATE on that one exact URL, which
// only the user's yes for that file gives (a trusted list never answers
// it), and which covers it once. An iframe is not a page composing itself
// here: every file on the disk would be one frame away. Some places are
// refused whatever was approved, in every mode and during a takeover too
// (Places.Refusal): a directory listing, and a path under a dot directory
// or dotfile (~/.ssh, ~/.gnupg, ~/.aws, ~/.config/gcloud, ~/.kube, ~/.netrc,
// browser profiles, keyrings), lyrad's own data directory (the download
// directory in it aside), the system's own trees (/etc, /proc, /sys, /dev,
// /root, /run, /boot, /var/lib, /var/log), and the platforms' secret stores (Keychains,
// keyrings, Application Support, AppData). What a file: page itself loads
// from the disk (images, scripts, styles, fetch, XHR) is refused: the
// guard answers it for the one file that was approved, not for the files
// around it.

// Reasons of the file: judgement.
const (
	ReasonFileDirectory   = "file_directory"   // a directory listing
	ReasonFileSecret      = "file_secret"      // a place never opened
	ReasonFileSubresource = "file_subresource" // a file: page loading another file
)

// Places is what the file: judgement knows of the machine, handed in by the
// caller: the package never looks at the disk.
type Places struct {
	// Private are directories whose files are never opened (lyrad's data
	// directory).
	Private []string
	// Open are directories inside a Private one, or under a dot directory,
	// whose files may be asked for (the download directory). A dot
	// component below one is still refused.
	Open []string
}

// systemRoots are trees of the system that no approved file lives in.
var systemRoots = []string{"/etc", "/proc", "/sys", "/dev", "/root", "/run", "/boot", "/var/lib", "/var/log", "/var/run", "/var/db", "/private/etc", "/private/var/db", "/private/var/root"}

// secretParts are path components (lower-cased) that name a platform's
// secret store or browser profiles without a leading dot.
var secretParts = map[string]bool{
	"keychains": true, "keyrings": true, "application support": true, "appdata": true,
	"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true,
}

// IsFileURL reports whether rawURL is a file: URL.
func IsFileURL(rawURL string) bool {
	i := strings.IndexByte(rawURL, ':')
	return i > 0 && strings.EqualFold(rawURL[:i], "file")
}

// FilePath is the absolute path a file: URL names, cleaned, and whether
// the URL names a directory (its path ends with /). ok is false when
// rawURL is not a file: URL with an absolute local path.
func FilePath(rawURL string) (p string, dir, ok bool) {
	if !IsFileURL(rawURL) {
		return "", false, false
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) || !strings.HasPrefix(u.Path, "/") {
		return "", false, false
	}
	return path.Clean(u.Path), strings.HasSuffix(u.Path, "/"), true
}

// Refusal is why a file: URL is never opened, or "" when it may be asked
// for. A URL that names no local absolute path is refused as secret: fail
// closed.
func (p Places) Refusal(rawURL string) string {
	fp, dir, ok := FilePath(rawURL)
	if !ok {
		return ReasonFileSecret
	}
	if dir || fp == "/" {
		return ReasonFileDirectory
	}
	return p.PathRefusal(fp)
}

// PathRefusal is Refusal for a cleaned absolute path (for the caller's
// second look, at where its symbolic links lead).
func (p Places) PathRefusal(fp string) string {
	fp = path.Clean(fp)
	for _, open := range p.Open {
		if rel, ok := below(fp, open); ok {
			if dotted(rel) {
				return ReasonFileSecret
			}
			return ""
		}
	}
	// A case-insensitive disk (macOS) opens /ETC as /etc: compared
	// lower-cased, which only ever refuses more.
	low := strings.ToLower(fp)
	for _, priv := range p.Private {
		if _, ok := below(low, strings.ToLower(priv)); ok {
			return ReasonFileSecret
		}
	}
	for _, root := range systemRoots {
		if _, ok := below(low, root); ok {
			return ReasonFileSecret
		}
	}
	if dotted(fp) {
		return ReasonFileSecret
	}
	return ""
}

// below: p is dir or under it; rel is the rest.
func below(p, dir string) (rel string, ok bool) {
	if dir == "" {
		return "", false
	}
	dir = path.Clean(dir)
	if p == dir {
		return "", true
	}
	if dir == "/" {
		return p[1:], true
	}
	if strings.HasPrefix(p, dir+"/") {
		return p[len(dir)+1:], true
	}
	return "", false
}

// dotted: a component of p is a dot directory or dotfile, or a platform's
// secret store.
func dotted(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if strings.HasPrefix(part, ".") || secretParts[strings.ToLower(part)] {
			return true
		}
	}
	return false
}
