package chrome

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lyrad/lyrad/internal/testenv"
)

// browserOrSkip returns the installed browser under the harness's rule
// (testenv.Browser: skips under -short, fails in CI when there is none).
func browserOrSkip(t *testing.T) string {
	t.Helper()
	return testenv.Browser(t, func() (string, error) {
		f, err := Find("", "")
		return f.Path, err
	})
}

func stub(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func skipWindows(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses shell-script stubs")
	}
}

func TestFindExplicitWins(t *testing.T) {
	skipWindows(t)
	exe := stub(t, t.TempDir(), "mybrowser", "exit 0")
	f, err := Find("chromium", exe)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != exe || f.Channel != "explicit" {
		t.Fatalf("got %+v", f)
	}
}

func TestFindExplicitBad(t *testing.T) {
	skipWindows(t)
	dir := t.TempDir()
	noexec := filepath.Join(dir, "noexec")
	if err := os.WriteFile(noexec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), noexec, dir} {
		_, err := Find("", p)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), p) {
			t.Errorf("Find(%q) = %v; want ErrNotFound naming the path", p, err)
		}
	}
}

func TestFindUnknownChannel(t *testing.T) {
	_, err := Find("firefox", "")
	if err == nil || errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"firefox", "chrome, chrome-beta", "msedge", "chromium"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %q", err, want)
		}
	}
}

func TestFindOrder(t *testing.T) {
	skipWindows(t)
	// The Linux table minus absolute paths, so only our fake PATH counts.
	table := map[string][]string{}
	for ch, cs := range candidates("linux", os.Getenv) {
		for _, c := range cs {
			if !filepath.IsAbs(c) {
				table[ch] = append(table[ch], c)
			}
		}
	}
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	for _, n := range []string{"chromium", "microsoft-edge", "google-chrome"} {
		stub(t, dir, n, "exit 0")
	}
	for _, want := range []struct{ channel, name string }{
		{"chrome", "google-chrome"},
		{"msedge", "microsoft-edge"},
		{"chromium", "chromium"},
	} {
		f, err := find("", "", table)
		if err != nil {
			t.Fatal(err)
		}
		if f.Channel != want.channel || f.Path != filepath.Join(dir, want.name) {
			t.Fatalf("got %+v, want %s at %s", f, want.channel, want.name)
		}
		if _, err := find("chrome-beta", "", table); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "chrome-beta") {
			t.Fatalf("missing channel: %v", err)
		}
		os.Remove(f.Path) // next round finds the next browser in order
	}
	_, err := find("", "", table)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"Chromium", "apt-get install chromium"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %q", err, want)
		}
	}
}

func TestVersion(t *testing.T) {
	skipWindows(t)
	exe := stub(t, t.TempDir(), "b", `echo "  Chromium 156.0.1 built on Debian  "; echo second line; echo noise >&2`)
	v, err := Version(context.Background(), exe)
	if err != nil || v != "Chromium 156.0.1 built on Debian" {
		t.Fatalf("Version = %q, %v", v, err)
	}

	v, err = Version(context.Background(), browserOrSkip(t))
	if err != nil || !strings.Contains(v, "Chrom") && !strings.Contains(v, "Edge") || strings.Contains(v, "\n") {
		t.Fatalf("Version = %q, %v", v, err)
	}
	t.Log(v)
}

func TestHeadfulUserAgent(t *testing.T) {
	for in, want := range map[string]string{
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.8078.73 Safari/537.36": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.8078.73 Safari/537.36",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.8078.73 Safari/537.36":         "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.8078.73 Safari/537.36",
		"": "",
	} {
		if got := HeadfulUserAgent(in); got != want {
			t.Errorf("HeadfulUserAgent(%q) = %q", in, got)
		}
	}
}
