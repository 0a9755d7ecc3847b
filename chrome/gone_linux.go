//go:build linux

package chrome

import (
	"errors"
	"os"
)

// pfExiting is the kernel's PF_EXITING task flag: the process is on its way
// out.
const pfExiting = 0x4

// procDying reports whether the process is gone from /proc, a zombie, or
// exiting.
func procDying(pid int) bool {
	st, err := readProcStat(pid)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return st.dying()
}

func (st procStat) dying() bool {
	return st.state == "Z" || st.state == "X" || st.flags&pfExiting != 0
}
