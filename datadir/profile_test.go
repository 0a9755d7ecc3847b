//go:build unix

package datadir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestAcquireProfile(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	p1, rel1, err := New(data).AcquireProfile(nil)
	if err != nil {
		t.Fatal(err)
	}
	if p1.Kind != KindPersistent || p1.Dir != filepath.Join(data, "profile") {
		t.Fatalf("first = %+v", p1)
	}
	for _, d := range []string{data, p1.Dir} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v", d, fi.Mode(), err)
		}
	}

	// Same process, second holder: flock is per open file description, so it must lose.
	p2, rel2, err := New(data).AcquireProfile(nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	// <pid>, or <pid>-N when earlier instances were made in this process (go test -count).
	name := filepath.Base(filepath.Dir(p2.Dir))
	if p2.Kind != KindInstance || p2.Holder != os.Getpid() || name != pid && !strings.HasPrefix(name, pid+"-") ||
		filepath.Dir(filepath.Dir(p2.Dir)) != data+"-instances" {
		t.Fatalf("second = %+v", p2)
	}
	if fi, err := os.Stat(p2.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("instance dir: %v %v", fi.Mode(), err)
	}
	p3, rel3, err := New(data).AcquireProfile(nil)
	if err != nil || p3.Kind != KindInstance || p3.Dir == p2.Dir {
		t.Fatalf("third = %+v, %v", p3, err)
	}

	rel2()
	if _, err := os.Stat(filepath.Dir(p2.Dir)); !os.IsNotExist(err) {
		t.Fatalf("instance dir not removed: %v", err)
	}
	if _, err := os.Stat(p3.Dir); err != nil {
		t.Fatalf("other instance removed: %v", err)
	}
	rel3()
	if _, err := os.Stat(data + "-instances"); !os.IsNotExist(err) {
		t.Fatalf("empty instances dir left: %v", err)
	}

	rel1()
	p4, rel4, err := New(data).AcquireProfile(nil)
	if err != nil || p4.Kind != KindPersistent {
		t.Fatalf("after release = %+v, %v", p4, err)
	}
	rel4()
}

// TestAcquireProfileStaleInstance: an instance directory with our name is
// left by a dead process that had our pid. Its browser is ended (endStale,
// given the pid file and the profile it names) before the directory is
// cleared and made afresh.
func TestAcquireProfileStaleInstance(t *testing.T) {
	d := New(filepath.Join(t.TempDir(), "data"))
	p1, rel1, err := d.AcquireProfile(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rel1()
	if p1.PIDFile != d.BrowserPID() {
		t.Fatalf("persistent PIDFile = %q, want %q", p1.PIDFile, d.BrowserPID())
	}

	// The name the next instance will get: <pid>-N, N one past the counter.
	name := strconv.Itoa(os.Getpid())
	if n := instanceSeq.Load() + 1; n > 1 {
		name += "-" + strconv.FormatInt(n, 10)
	}
	stale := filepath.Join(d.Instances(), name)
	if err := os.MkdirAll(filepath.Join(stale, "profile"), 0o755); err != nil {
		t.Fatal(err)
	}
	leftover := filepath.Join(stale, "profile", "Cookies")
	if err := os.WriteFile(leftover, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	var ended []string
	p2, rel2, err := d.AcquireProfile(func(pidFile, profileDir string) error {
		ended = append(ended, pidFile, profileDir)
		if _, err := os.Stat(leftover); err != nil {
			t.Errorf("the stale directory was cleared before its browser was ended: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rel2()
	want := []string{filepath.Join(stale, "browser.pid"), filepath.Join(stale, "profile")}
	if p2.Kind != KindInstance || p2.Dir != want[1] || p2.PIDFile != want[0] {
		t.Fatalf("instance = %+v, want dir %s", p2, want[1])
	}
	if strings.Join(ended, " ") != strings.Join(want, " ") {
		t.Fatalf("endStale got %q, want %q", ended, want)
	}
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Fatalf("stale profile content kept: %v", err)
	}
	if fi, err := os.Stat(p2.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("instance dir: %v %v", fi.Mode(), err)
	}

	// An error from endStale is an error: the browser may still run there.
	_, _, err = d.AcquireProfile(func(string, string) error { return errors.New("still running") })
	if err == nil || !strings.Contains(err.Error(), "still running") {
		t.Fatalf("AcquireProfile with a browser that would not die = %v", err)
	}

	if _, _, err := New("").AcquireProfile(nil); err == nil {
		t.Fatal("AcquireProfile with no directory succeeded")
	}
}
