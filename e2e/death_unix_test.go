//go:build unix

package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// The deaths a signal brings (death_test.go has the runs and the sink).

func TestBrowserDiesWithKilledLyrad(t *testing.T) {
	deathRuns(t, "sigkill", lyradBin, nil, func(t *testing.T, v *victim, dir string) {
		if err := syscall.Kill(v.pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	})
}

func TestBrowserDiesWithPanickingLyrad(t *testing.T) {
	deathRuns(t, "panic", lyradTestBuild(t), nil, func(t *testing.T, v *victim, dir string) {
		if err := syscall.Kill(v.pid, syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
	})
}

// TestBrowserDiesByWatchdogAlone: with the parent-death signal off (a test
// build's LYRAD_TEST_NO_PDEATHSIG), as on every system but Linux, the
// watchdog alone ends the browser when lyrad is SIGKILLed: nothing gets
// out, no process is left.
func TestBrowserDiesByWatchdogAlone(t *testing.T) {
	deathRuns(t, "watchdog", lyradTestBuild(t), []string{"LYRAD_TEST_NO_PDEATHSIG=1"}, func(t *testing.T, v *victim, dir string) {
		if err := syscall.Kill(v.pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	})
}

// SIGHUP (the terminal closed) is a graceful stop: the browser closed, the
// audit says so, the lock released (the next run gets the persistent
// profile, not an instance).
func TestSIGHUPClosesBrowser(t *testing.T) {
	deathRuns(t, "sighup", lyradBin, nil, func(t *testing.T, v *victim, dir string) {
		before := auditShutdowns(t, dir)
		if err := syscall.Kill(v.pid, syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "lyrad to exit on SIGHUP", 15*time.Second, func() bool { return !testenv.Running(v.pid) })
		// Both rows may come: the session ends as the front door closes.
		if got := auditShutdowns(t, dir); got <= before {
			var rows []string
			for _, r := range rowsWhere(auditRows(t, dir), has{"kind": func(k any) bool { return k != "guard" }}) {
				rows = append(rows, jsonString(r))
			}
			t.Errorf("SIGHUP: no audit row for the browser closed in order; audit rows but the guard's:\n%s", strings.Join(rows, "\n"))
		}
	})
}
