//go:build windows

package testenv

import "syscall"

// stillActive is what GetExitCodeProcess reports of a process that runs.
const stillActive = 259

// Running reports whether process pid exists and has not exited.
func Running(pid int) bool {
	h, err := syscall.OpenProcess(syscall.PROCESS_QUERY_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer syscall.CloseHandle(h)
	var code uint32
	return syscall.GetExitCodeProcess(h, &code) == nil && code == stillActive
}

// GroupRunning: Windows has no process groups; what a test started as a
// group's leader is taken for the group.
func GroupRunning(pgid int) bool { return Running(pgid) }
