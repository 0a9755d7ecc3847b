//go:build unix

package launch

import (
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/chrome"
)

// watchdog is lyrad's end of one browser's watchdog (see watchdog.go). A
// nil *watchdog is none: every method does nothing.
type watchdog struct {
	log  *zap.Logger
	mu   sync.Mutex
	ctrl *net.UnixConn // nil once released
}

// startWatchdog starts exe as the watchdog of the browser about to start;
// nil when exe is "" or it cannot be started (logged: the browser then has
// only what the system gives, the parent-death signal on Linux).
func startWatchdog(exe string, log *zap.Logger) *watchdog {
	if exe == "" {
		return nil
	}
	w, err := spawnWatchdog(exe)
	if err != nil {
		log.Warn("cannot start the browser's watchdog; on Linux the parent-death signal alone ends the browser with lyrad, elsewhere nothing does", zap.Error(err))
		return nil
	}
	w.log = log
	return w
}

func spawnWatchdog(exe string) (*watchdog, error) {
	fds, err := socketpair()
	if err != nil {
		return nil, err
	}
	theirs := os.NewFile(uintptr(fds[1]), "watchdog")
	defer theirs.Close()
	mine := os.NewFile(uintptr(fds[0]), "watchdog")
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, WatchdogVerb)
	cmd.Stdin = theirs
	// Its own group: a terminal's ^C or hang-up, sent to lyrad's group,
	// must not end it before lyrad has closed the browser in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.Close()
		return nil, err
	}
	go func() { _ = cmd.Wait() }() // reaps it; it ends when told, or when lyrad does
	return &watchdog{ctrl: c.(*net.UnixConn)}, nil
}

// socketpair makes the channel, both ends close-on-exec, under the fork
// lock, so that no other child (the browser above all) inherits lyrad's
// end: the watchdog would then never see it close.
func socketpair() ([2]int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return fds, os.NewSyscallError("socketpair", err)
	}
	syscall.CloseOnExec(fds[0])
	syscall.CloseOnExec(fds[1])
	return fds, nil
}

// send writes one line, with the rights in oob; false when the watchdog is
// released or unreachable.
func (w *watchdog) send(line string, oob []byte) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctrl == nil {
		return false
	}
	_ = w.ctrl.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, _, err := w.ctrl.WriteMsgUnix([]byte(line+"\n"), oob, nil); err != nil {
		w.log.Warn("the browser's watchdog is unreachable", zap.Error(err))
		return false
	}
	return true
}

// watch tells the watchdog the browser's pid.
func (w *watchdog) watch(pid int) { w.send(msgPid+strconv.Itoa(pid), nil) }

// hold hands the watchdog the CDP connection's socket.
func (w *watchdog) hold(c net.Conn) {
	if w == nil || c == nil {
		return
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) { w.send(msgHold, syscall.UnixRights(int(fd))) })
}

// release tells the watchdog the browser is gone, and lets it go.
func (w *watchdog) release() {
	if w == nil {
		return
	}
	w.send(msgGone, nil)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctrl != nil {
		w.ctrl.Close()
		w.ctrl = nil
	}
}

// RunWatchdog is the watchdog process (lyrad __watchdog): it reads the
// channel on its standard input until "gone", or until the channel closes,
// when it kills the browser's group. The sockets it was handed stay open
// until then.
func RunWatchdog() int {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT)
	f := os.NewFile(0, "lyrad")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return 2
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 2
	}
	var st watchdogState
	var held []int // the sockets lyrad handed over: open until the browser is dead
	var pending []byte
	buf := make([]byte, 512)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	for !st.gone {
		n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
		if oobn > 0 {
			if msgs, err := syscall.ParseSocketControlMessage(oob[:oobn]); err == nil {
				for i := range msgs {
					if fds, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
						held = append(held, fds...)
					}
				}
			}
		}
		pending = st.feed(append(pending, buf[:n]...))
		if err != nil || n == 0 && oobn == 0 {
			break // lyrad is gone
		}
	}
	if !st.gone && st.pid > 0 {
		endGroup(st.pid)
	}
	for _, fd := range held {
		syscall.Close(fd)
	}
	return 0
}

// endGroup kills the browser's process group (chrome.Launch makes the
// browser its leader) and waits, a few seconds at most, until the browser
// runs no more.
func endGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	for deadline := time.Now().Add(5 * time.Second); !chrome.Ending(pid) && time.Now().Before(deadline); {
		time.Sleep(2 * time.Millisecond)
	}
}
