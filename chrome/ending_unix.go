//go:build unix

package chrome

import (
	"errors"
	"syscall"
)

// Ending reports whether process pid is gone, a zombie or on its way out
// (where /proc tells: Linux), or else gone: once it is, the browser runs
// none of its code, so nothing it held can be let go by it any more.
func Ending(pid int) bool {
	return procDying(pid) || errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
