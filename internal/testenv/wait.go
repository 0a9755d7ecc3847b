package testenv

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, and fails the test when it still does
// not after d: "timed out waiting for <what>". d is a bound on a loaded
// machine, not an expected time: a test that holds waits only as long as
// cond takes.
func WaitFor(t testing.TB, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
