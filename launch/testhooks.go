//go:build lyrad_testhooks

package launch

import "os"

// A test build (go build -tags lyrad_testhooks) with
// LYRAD_TEST_NO_PDEATHSIG=1 starts the browser without the parent-death
// signal, so that the end-to-end tests see the watchdog alone end it with
// lyrad, as it must on every system but Linux. A release build has no such
// setting.
func init() {
	noParentDeathSignal = os.Getenv("LYRAD_TEST_NO_PDEATHSIG") == "1"
}
