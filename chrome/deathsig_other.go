//go:build unix && !linux

package chrome

import "syscall"

// dieWithParent: Linux alone has a parent-death signal. Elsewhere launch's
// watchdog ends the browser with lyrad.
func dieWithParent(*syscall.SysProcAttr) {}
