//go:build linux

package chrome

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// Run as the browser by TestParentDeathSignal (Launch passes
// --remote-debugging-port=0, which go test never does), this test binary
// records the parent-death signal it was started with, then stands as a
// browser would. In init: the main thread is the one the signal was set
// on.
func init() {
	if !slices.Contains(os.Args, "--remote-debugging-port=0") {
		return
	}
	var dir string
	for _, a := range os.Args {
		if d, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
			dir = d
		}
	}
	var sig int32
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&sig)), 0); errno != 0 {
		sig = -1
	}
	_ = os.WriteFile(filepath.Join(dir, "pdeathsig"), []byte(strconv.Itoa(int(sig))), 0o600)
	_ = os.WriteFile(filepath.Join(dir, activePortFile), []byte("9\n/devtools/browser/stub\n"), 0o600)
	time.Sleep(5 * time.Minute)
	os.Exit(0)
}

// TestParentDeathSignal: the browser is started with SIGKILL as its
// parent-death signal, and without one when NoParentDeathSignal asks (the
// watchdog's test).
func TestParentDeathSignal(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []bool{false, true} {
		profile := filepath.Join(t.TempDir(), "p")
		p, err := Launch(context.Background(), LaunchOptions{Path: exe, ProfileDir: profile, Headless: true, NoParentDeathSignal: off})
		if err != nil {
			t.Fatal(err)
		}
		p.Kill()
		b, err := os.ReadFile(filepath.Join(profile, "pdeathsig"))
		if err != nil {
			t.Fatal(err)
		}
		want := strconv.Itoa(int(syscall.SIGKILL))
		if off {
			want = "0"
		}
		if string(b) != want {
			t.Errorf("NoParentDeathSignal %v: the browser's parent-death signal is %s, want %s", off, b, want)
		}
		<-p.Done()
	}
}
