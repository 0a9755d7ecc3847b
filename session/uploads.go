package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Which local files a page may be handed. The seed has no rule: any path
// the agent names is given to the page. lyrad keeps uploads inside the
// operator's upload roots (LYRA_BROWSER_UPLOAD_ROOTS, by default the user's
// home) and never from lyrad's data directory or from anything whose path
// inside its root has a dot component (~/.ssh/id_ed25519, ~/.aws/credentials,
// ~/.netrc): keys and credentials live there, and a confused or steered
// agent should not be able to attach them. Symlinks are resolved first, so
// a link in the home pointing into ~/.ssh is judged by where it leads.

// checkUploads resolves paths and checks them against the rule, before
// anything else happens. The answer lists the files, or an error envelope
// naming the paths that are missing or refused.
func (m *Manager) checkUploads(paths []string) ([]UploadedFile, error) {
	if len(paths) == 0 {
		return nil, newError(StatusError, "paths is empty: no file to attach",
			`Pass the absolute paths of the files, e.g. paths=["/home/me/report.pdf"].`).with("argument", "paths")
	}
	var files []UploadedFile
	var missing, refused []string
	for _, p := range paths {
		f, problem := m.checkUpload(p)
		switch problem {
		case "":
			files = append(files, f)
		case "missing":
			missing = append(missing, p)
		default:
			refused = append(refused, p)
		}
	}
	if len(missing) > 0 {
		return nil, newError(StatusError, fmt.Sprintf("%d of the paths are not files that can be read: nothing was attached", len(missing)),
			"Check each path in missing (absolute paths to regular files), then call again with all of them.").
			with("argument", "paths").with("missing", missing)
	}
	if len(refused) > 0 {
		return nil, newError(StatusError, fmt.Sprintf("%d of the paths are outside what may be uploaded: nothing was attached", len(refused)),
			"Files are uploaded only from "+strings.Join(m.uploadRoots(), ", ")+" (LYRA_BROWSER_UPLOAD_ROOTS), never from lyrad's data directory or from a dot directory or dotfile such as ~/.ssh; copy the file to an ordinary folder there first.").
			with("argument", "paths").with("refused", refused)
	}
	return files, nil
}

// checkUpload resolves one path: "" when it may be uploaded, "missing" when
// it is no regular file, "refused" when the rule keeps it.
func (m *Manager) checkUpload(p string) (UploadedFile, string) {
	if !filepath.IsAbs(p) {
		return UploadedFile{}, "missing"
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return UploadedFile{}, "missing"
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return UploadedFile{}, "missing"
	}
	if !m.uploadAllowed(real) {
		return UploadedFile{}, "refused"
	}
	return UploadedFile{Name: filepath.Base(real), Path: real, Bytes: st.Size()}, ""
}

// uploadAllowed: real (symlinks resolved) lies in an upload root, not in
// the data directory, and has no dot component below its root.
func (m *Manager) uploadAllowed(real string) bool {
	if d := resolvedDir(m.cfg.DataDir); d != "" && within(real, d) {
		return false
	}
	for _, root := range m.uploadRoots() {
		r := resolvedDir(root)
		if r == "" || !within(real, r) {
			continue
		}
		rel, err := filepath.Rel(r, real)
		if err != nil {
			continue
		}
		dotted := false
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			if strings.HasPrefix(part, ".") {
				dotted = true
			}
		}
		if !dotted {
			return true
		}
	}
	return false
}

// uploadRoots are the configured roots, else the user's home.
func (m *Manager) uploadRoots() []string {
	if len(m.cfg.UploadRoots) > 0 {
		return m.cfg.UploadRoots
	}
	if h, err := os.UserHomeDir(); err == nil {
		return []string{h}
	}
	return nil
}

func resolvedDir(d string) string {
	if d == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(d); err == nil {
		return r
	}
	return filepath.Clean(d)
}

// within: p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
