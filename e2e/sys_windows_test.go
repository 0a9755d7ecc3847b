//go:build windows

package e2e

import "os/exec"

// ownGroup: Windows has no process groups; killGroup ends the process
// itself.
func ownGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

// mkfifo makes nothing: there are no named pipes in the file system here,
// and a path that names nothing is what a test of one expects lyrad to
// answer ("missing").
func mkfifo(string) error { return nil }
