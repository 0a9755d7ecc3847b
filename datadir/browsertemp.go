package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lyrad/lyrad/internal/proc"
)

// browserTempPrefix starts the name of a lyrad's browser temporary
// directory, which ends in that lyrad's pid.
const browserTempPrefix = ".tmp-"

// BrowserTemp is the private temporary directory of this process's
// browser (where it stages downloads and blobs): inside the directory and
// short, since Chrome puts a Unix socket there; one per lyrad, as each has
// its own browser. The zero Dir has none ("": chrome's default, inside the
// profile).
func (d Dir) BrowserTemp() string {
	if d.root == "" {
		return ""
	}
	return d.path(browserTempPrefix + strconv.Itoa(os.Getpid()))
}

// ClearDeadBrowserTemps removes the browser temporary directories of
// lyrads that are gone: one that was killed leaves its own, and a
// browser's partial downloads and blobs may be in it. The error names
// each directory that could not be removed.
func (d Dir) ClearDeadBrowserTemps() error {
	if d.root == "" {
		return nil
	}
	dirs, _ := filepath.Glob(d.path(browserTempPrefix + "*"))
	var errs []error
	for _, dir := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), browserTempPrefix))
		if err != nil || pid == os.Getpid() || proc.Alive(pid) {
			continue
		}
		errs = append(errs, os.RemoveAll(dir))
	}
	return errors.Join(errs...)
}
