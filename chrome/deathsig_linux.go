//go:build linux

package chrome

import "syscall"

// dieWithParent has the kernel SIGKILL the browser when the thread that
// started it ends. startTied keeps that thread for the browser's whole
// life, so this is when lyrad's process ends, however it ends: SIGKILL, a
// panic, the OOM killer. The browser's helpers follow within milliseconds
// once their browser is gone (they hold its IPC channels).
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
