//go:build unix

package testenv

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Running reports whether process pid exists and is not a zombie. A zombie
// counts as gone: its code no longer runs, and in a container nobody may
// reap it. Where there is no /proc, the kernel's word (signal 0) is taken.
func Running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return !procMounted()
	}
	st, ok := parseStat(string(b))
	return !ok || st.running()
}

// GroupRunning reports whether any member of process group pgid runs (not
// a zombie): a browser's helpers share its group, so this is how a test
// sees that none outlived it.
func GroupRunning(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	if stats == nil {
		return true // no /proc: trust the kernel's word
	}
	for _, f := range stats {
		b, _ := os.ReadFile(f)
		if st, ok := parseStat(string(b)); ok && st.pgrp == pgid && st.running() {
			return true
		}
	}
	return false
}

func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// stat is what the tests need of /proc/<pid>/stat.
type stat struct {
	state byte
	pgrp  int
}

func (s stat) running() bool { return s.state != 'Z' && s.state != 'X' }

// parseStat reads "pid (comm) state ppid pgrp ...": comm may hold spaces and
// parentheses, so the fields start after the last ')'.
func parseStat(s string) (stat, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return stat{}, false
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], pgrp: pgrp}, true
}
