package testenv

import (
	"errors"
	"testing"
)

// recorder stands in for a test, noting how Need ended it.
type recorder struct {
	testing.TB
	fatal, skip bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.fatal = true }
func (r *recorder) Skipf(string, ...any)  { r.skip = true }

// TestNeedFailsInCI: what a test needs and lacks fails it in CI, skips it
// elsewhere, and nothing happens when it is there.
func TestNeedFailsInCI(t *testing.T) {
	missing := errors.New("not installed")
	for _, c := range []struct {
		ci          string
		err         error
		fatal, skip bool
	}{
		{"true", missing, true, false},
		{"", missing, false, true},
		{"1", missing, false, true}, // CI=true only, as the Taskfile and GitHub set it
		{"true", nil, false, false},
	} {
		t.Setenv("CI", c.ci)
		r := &recorder{TB: t}
		Need(r, "a browser", c.err)
		if r.fatal != c.fatal || r.skip != c.skip {
			t.Errorf("CI=%q err=%v: fatal %v skip %v, want %v %v", c.ci, c.err, r.fatal, r.skip, c.fatal, c.skip)
		}
	}
}
