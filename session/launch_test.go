package session

import (
	"errors"
	"testing"

	"github.com/lyrad/lyrad/launch"
)

// TestLaunchError: a failed launch answers by the step that failed, with
// the cause in the message.
func TestLaunchError(t *testing.T) {
	cause := errors.New("cause")
	for _, c := range []struct {
		step   launch.Step
		status string
	}{
		{launch.StepFind, StatusBrowserUnavailable},
		{launch.StepProfile, StatusError},
		{launch.StepStart, StatusBrowserUnavailable},
		{launch.StepConnect, StatusBrowserUnavailable},
		{launch.StepGuard, StatusBrowserUnavailable},
		{launch.StepLost, StatusBrowserUnavailable},
	} {
		var se *Error
		err := launchError(&launch.Error{Step: c.step, Msg: "what", Err: cause})
		if !errors.As(err, &se) || se.Status != c.status || se.Hint == "" {
			t.Errorf("step %d: %#v, want status %s with a hint", c.step, err, c.status)
			continue
		}
		if want := "what: cause"; c.step != launch.StepFind && se.Message != want {
			t.Errorf("step %d: message %q, want %q", c.step, se.Message, want)
		}
	}
}
