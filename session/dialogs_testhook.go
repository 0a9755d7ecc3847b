//go:build lyrad_testhooks

package session

import (
	"os"
	"time"
)

// A test build (go build -tags lyrad_testhooks) reads LYRAD_TEST_DIALOG_TTL,
// a Go duration, as how long handle_dialog's armed answer waits, so the
// end-to-end tests see it expire without waiting a minute. A release build
// has no such setting.
func init() {
	if d, err := time.ParseDuration(os.Getenv("LYRAD_TEST_DIALOG_TTL")); err == nil && d > 0 {
		armedTTL = d
	}
}
