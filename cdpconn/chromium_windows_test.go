//go:build windows

package cdpconn

import "os/exec"

// ownGroup: Windows has no process groups; killGroup ends the process
// itself.
func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
