//go:build windows

package launch

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"go.uber.org/zap"
)

// detachedProcess is Windows' DETACHED_PROCESS creation flag: no console,
// so closing lyrad's console does not end the watchdog with it.
const detachedProcess = 0x00000008

// watchdog is lyrad's end of one browser's watchdog (see watchdog.go): a
// pipe. A nil *watchdog is none.
type watchdog struct {
	log *zap.Logger
	mu  sync.Mutex
	w   *os.File // nil once released
}

func startWatchdog(exe string, log *zap.Logger) *watchdog {
	if exe == "" {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		log.Warn("cannot start the browser's watchdog", zap.Error(err))
		return nil
	}
	defer r.Close()
	cmd := exec.Command(exe, WatchdogVerb)
	cmd.Stdin = r
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
	if err := cmd.Start(); err != nil {
		w.Close()
		log.Warn("cannot start the browser's watchdog; nothing ends the browser if lyrad is killed", zap.Error(err))
		return nil
	}
	go func() { _ = cmd.Wait() }() // reaps it
	return &watchdog{log: log, w: w}
}

func (w *watchdog) send(line string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.w == nil {
		return
	}
	if _, err := w.w.WriteString(line + "\n"); err != nil {
		w.log.Warn("the browser's watchdog is unreachable", zap.Error(err))
	}
}

func (w *watchdog) watch(pid int) { w.send(msgPid + strconv.Itoa(pid)) }

// hold: a socket cannot be handed to another process here as on Unix; the
// connection closes with lyrad, just before the watchdog kills the tree.
func (w *watchdog) hold(net.Conn) {}

func (w *watchdog) release() {
	if w == nil {
		return
	}
	w.send(msgGone)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.w != nil {
		w.w.Close()
		w.w = nil
	}
}

// RunWatchdog is the watchdog process (lyrad __watchdog): it reads the pipe
// on its standard input until "gone", or until the pipe closes, when it
// ends the browser's process tree. It opens the browser's process as soon
// as it is told of it, so that its pid is not given to another process
// meanwhile.
func RunWatchdog() int {
	var st watchdogState
	var h syscall.Handle
	sc := bufio.NewScanner(os.Stdin)
	for !st.gone && sc.Scan() {
		st.line(sc.Text())
		if h == 0 && st.pid > 0 {
			h, _ = syscall.OpenProcess(syscall.SYNCHRONIZE|syscall.PROCESS_QUERY_INFORMATION, false, uint32(st.pid))
		}
	}
	if st.gone || h == 0 {
		return 0
	}
	defer syscall.CloseHandle(h)
	if ev, _ := syscall.WaitForSingleObject(h, 0); ev != syscall.WAIT_TIMEOUT {
		return 0 // it exited already
	}
	_ = exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(st.pid)).Run()
	_, _ = syscall.WaitForSingleObject(h, 5000)
	return 0
}
