//go:build unix && !linux

package chrome

import "syscall"

// dieWithParent: Linux alone is given a parent-death signal here. Elsewhere
// a browser can outlive a killed lyrad, and only until lyrad next launches
// on that profile, where the pid file is read on systems with /proc.
func dieWithParent(*syscall.SysProcAttr) {}
