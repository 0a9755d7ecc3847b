//go:build linux

package chrome

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procStat is what /proc/<pid>/stat says of a process.
type procStat struct {
	state string
	pgrp  int
	flags uint64
	start string
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(string(b))
}

// parseProcStat reads the fields of a /proc/<pid>/stat line that lyrad uses.
func parseProcStat(s string) (procStat, error) {
	// The fields follow the parenthesised command name, which may hold
	// spaces and parentheses: state is field 3, pgrp 5, flags 9,
	// starttime 22.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return procStat{}, errors.New("short /proc stat")
	}
	pgrp, err := strconv.Atoi(f[2])
	if err != nil {
		return procStat{}, err
	}
	flags, err := strconv.ParseUint(f[6], 10, 64)
	if err != nil {
		return procStat{}, err
	}
	return procStat{state: f[0], pgrp: pgrp, flags: flags, start: f[19]}, nil
}

func procStart(pid int) (string, error) {
	st, err := readProcStat(pid)
	return st.start, err
}

// runsOnProfile reports whether the process's command line names the
// profile. The browser keeps its argv; its helpers rewrite theirs into one
// space-separated title.
func runsOnProfile(pid int, profileDir string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	cmdline := strings.ReplaceAll(string(b), "\x00", " ") + " "
	return strings.Contains(cmdline, " --user-data-dir="+profileDir+" ")
}

// orphanProcs lists the live processes of the recorded browser: the browser
// itself if its pid still has its start time, and the members of its
// process group that run on its profile. A group id cannot be taken again
// while any member lives, so those are its helpers even after the browser
// died.
func orphanProcs(rec pidRecord) []int {
	if rec.PID <= 0 {
		return nil
	}
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readProcStat(pid)
		if err != nil || st.state == "Z" || st.state == "X" {
			continue // gone, or dead and waiting to be reaped
		}
		if pid == rec.PID && st.start == rec.Start || st.pgrp == rec.PID && runsOnProfile(pid, rec.Profile) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killProcs kills the browser's group (Launch made the browser its
// leader) and each listed process, in case one left the group.
func killProcs(rec pidRecord, pids []int) {
	_ = syscall.Kill(-rec.PID, syscall.SIGKILL)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
