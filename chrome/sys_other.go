//go:build !unix

package chrome

import (
	"errors"
	"os"
	"os/exec"
)

// Without Unix process groups only the browser process itself is signalled;
// Chrome on Windows takes its helpers down with it.
func ownGroup(*exec.Cmd, bool) {}

func killGroup(p *os.Process) error { return ignoreDone(p.Kill()) }
func termGroup(p *os.Process) error { return ignoreDone(p.Kill()) }

func ignoreDone(err error) error {
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
