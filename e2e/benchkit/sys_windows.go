//go:build windows

package benchkit

import (
	"os"
	"os/exec"
)

// ownGroup: Windows has no process groups; killGroup ends the process
// itself.
func ownGroup(*exec.Cmd) {}

func killGroup(pid int) { kill(pid) }

func kill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
