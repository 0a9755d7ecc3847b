package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Which local files a page may be handed. Without a rule any path the
// agent names would be given to the page. lyrad keeps uploads inside the
// operator's upload roots (LYRA_BROWSER_UPLOAD_ROOTS, by default the user's
// home) and never from lyrad's data directory, from anything whose path
// inside its root has a dot component (~/.ssh/id_ed25519, ~/.aws/credentials,
// ~/.netrc), from a platform's secret stores (~/Library/Keychains, Cookies
// and Application Support on macOS, AppData on Windows), nor a file with
// more than one hard link (one of its other names may be ~/.ssh/id_*):
// keys and credentials live there, and a confused or steered agent should
// not be able to attach them.
//
// The file is judged by what it is, not by its path: it is opened first
// (without blocking, so a FIFO cannot hang the call), its real path is the
// descriptor's, and the browser is handed a private copy made from that
// descriptor (stageUploads), so a folder swapped for a symlink or a file
// replaced after the check changes nothing the page receives.

// uploadRules are the rule's settings: the operator's upload roots and
// lyrad's data directory (Config's UploadRoots and DataDir).
type uploadRules struct {
	roots   []string
	dataDir string
}

// uploadsOf are cfg's rules.
func uploadsOf(cfg Config) uploadRules {
	return uploadRules{roots: cfg.UploadRoots, dataDir: cfg.Data.Root()}
}

// checkedUpload is a file that passed the check, open until it is staged.
type checkedUpload struct {
	UploadedFile
	f *os.File
}

// checkUploads opens paths and checks them against the rule, before
// anything else happens. The answer holds the files open (closeUploads
// closes them), or is an error envelope naming the paths that are missing
// or refused.
func (u uploadRules) checkUploads(paths []string) ([]checkedUpload, error) {
	if len(paths) == 0 {
		return nil, newError(StatusError, "paths is empty: no file to attach",
			`Pass the absolute paths of the files, e.g. paths=["/home/me/report.pdf"].`).arg("paths")
	}
	var files []checkedUpload
	var missing, refused, linked []string
	for _, p := range paths {
		f, problem := u.checkUpload(p)
		switch problem {
		case "":
			files = append(files, f)
		case "missing":
			missing = append(missing, p)
		case "linked":
			linked = append(linked, p)
		default:
			refused = append(refused, p)
		}
	}
	if len(missing)+len(refused)+len(linked) > 0 {
		closeUploads(files)
	}
	if len(missing) > 0 {
		return nil, newError(StatusError, fmt.Sprintf("%d of the paths are not files that can be read: nothing was attached", len(missing)),
			"Check each path in missing (absolute paths to regular files), then call again with all of them.").
			arg("paths").missingPaths(missing)
	}
	if len(refused)+len(linked) > 0 {
		e := newError(StatusError, fmt.Sprintf("%d of the paths are outside what may be uploaded: nothing was attached", len(refused)+len(linked)),
			"Files are uploaded only from "+strings.Join(u.uploadRoots(), ", ")+" (LYRA_BROWSER_UPLOAD_ROOTS), never from lyrad's data directory, a dot directory or dotfile such as ~/.ssh, or a secret store such as ~/Library/Keychains, and never a file with other hard links; copy the file to an ordinary folder there first.").
			arg("paths").refusedPaths(append(refused, linked...))
		if len(linked) > 0 {
			e.Linked = linked
		}
		return nil, e
	}
	return files, nil
}

// checkUpload opens and judges one path: "" when it may be uploaded,
// "missing" when it is no regular file, "linked" when it has other hard
// links, "refused" when the rule keeps it.
func (u uploadRules) checkUpload(p string) (checkedUpload, string) {
	if !filepath.IsAbs(p) {
		return checkedUpload{}, "missing"
	}
	f, err := openNoBlock(p)
	if err != nil {
		return checkedUpload{}, "missing"
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return checkedUpload{}, "missing"
	}
	real, err := openedPath(f, p, st)
	if err != nil {
		return checkedUpload{}, "missing"
	}
	if !u.uploadAllowed(real) {
		return checkedUpload{}, "refused"
	}
	if hardLinks(st) > 1 {
		return checkedUpload{}, "linked"
	}
	keep = true
	return checkedUpload{UploadedFile: UploadedFile{Name: filepath.Base(real), Path: real, Bytes: st.Size()}, f: f}, ""
}

func closeUploads(files []checkedUpload) {
	for _, f := range files {
		if f.f != nil {
			f.f.Close()
		}
	}
}

// stageUploads copies each file, from its open descriptor, into a folder of
// its own in the private uploads folder, under its own name, and answers the
// copies' paths: what the browser reads when the page sends the form.
// The copies live as long as lyrad does (uploadRules.clear at start and stop).
func (u uploadRules) stageUploads(files []checkedUpload) ([]string, error) {
	base := u.uploadsDir()
	if err := os.MkdirAll(base, 0o700); err != nil {
		return nil, err
	}
	var id [8]byte
	rand.Read(id[:])
	dir := filepath.Join(base, hex.EncodeToString(id[:]))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, err
	}
	out := make([]string, len(files))
	for i, f := range files {
		sub := filepath.Join(dir, fmt.Sprint(i))
		if err := os.Mkdir(sub, 0o700); err != nil {
			return nil, err
		}
		dst := filepath.Join(sub, f.Name)
		w, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		_, err = f.f.Seek(0, io.SeekStart)
		if err == nil {
			_, err = io.Copy(w, f.f)
		}
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("copying %s for the browser: %w", f.Path, err)
		}
		out[i] = dst
	}
	return out, nil
}

// uploadsDir holds the copies handed to the browser: inside the data dir
// (private, 0700), or the system's temporary directory without one.
func (u uploadRules) uploadsDir() string {
	if u.dataDir == "" {
		return filepath.Join(os.TempDir(), fmt.Sprintf("lyrad-uploads-%d", os.Getpid()))
	}
	return filepath.Join(u.dataDir, "uploads")
}

// clear removes the copies of earlier uploads.
func (u uploadRules) clear() {
	os.RemoveAll(u.uploadsDir())
}

// uploadAllowed: real (symlinks resolved) lies in an upload root, not in
// the data directory, and has no dot component below its root nor a
// platform secret store's folder in its path.
func (u uploadRules) uploadAllowed(real string) bool {
	if d := resolvedDir(u.dataDir); d != "" && within(real, d) {
		return false
	}
	if secretStore(real) {
		return false
	}
	for _, root := range u.uploadRoots() {
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

// secretStores are folders where platforms keep passwords, keys and
// cookies without a dot in their names: macOS's keychains, cookie jars and
// application data (browser profiles), Windows' AppData.
var secretStores = [][]string{
	{"Library", "Keychains"}, {"Library", "Cookies"}, {"Library", "Application Support"},
	{"Library", "Containers"}, {"Library", "Group Containers"}, {"AppData"},
}

// secretStore: some run of p's components is a secret store's.
func secretStore(p string) bool {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(p)), "/")
	for i := range parts {
		for _, s := range secretStores {
			if i+len(s) > len(parts) {
				continue
			}
			match := true
			for j, c := range s {
				if !strings.EqualFold(parts[i+j], c) {
					match = false
					break
				}
			}
			if match {
				return true
			}
		}
	}
	return false
}

// resolvedSame is p with its symlinks resolved, which must still be the
// file st describes (the one opened).
func resolvedSame(p string, st os.FileInfo) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	now, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !os.SameFile(now, st) {
		return "", errors.New("the file changed while it was checked")
	}
	return real, nil
}

// uploadRoots are the configured roots, else the user's home.
func (u uploadRules) uploadRoots() []string {
	if len(u.roots) > 0 {
		return u.roots
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
