//go:build linux

package transport

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// peerOf reads the connecting process's credentials from the kernel: its
// uid and executable (and, for a relay that is lyrad itself, its parent's
// executable). ok is false when they cannot be read (the peer has already
// exited): no proof, so no resume.
func peerOf(uc *net.UnixConn) (proof, desc string, ok bool) {
	raw, err := uc.SyscallConn()
	if err != nil {
		return "", "", false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil || cred == nil || cred.Pid <= 0 {
		return "", "", false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", cred.Pid))
	if err != nil || exe == "" {
		return "", "", false
	}
	desc = fmt.Sprintf("uid %d, %s", cred.Uid, exe)
	id := fmt.Sprintf("uid=%d\x00exe=%s", cred.Uid, exe)
	if self, err := os.Readlink("/proc/self/exe"); err == nil && self == exe {
		// `lyrad stdio`: the client is the relay's parent.
		ppid, ok := parentOf(int(cred.Pid))
		if !ok {
			return "", "", false
		}
		client, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", ppid))
		if err != nil || client == "" {
			return "", "", false
		}
		desc += " relaying for " + client
		id += "\x00client=" + client
	}
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:]), desc, true
}

// parentOf reads pid's parent from /proc/pid/stat (the field after the
// state, past the command name's closing parenthesis).
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil || ppid <= 1 {
		return 0, false
	}
	return ppid, true
}
