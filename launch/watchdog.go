package launch

import (
	"strconv"
	"strings"
)

// The browser dies with lyrad, however lyrad ends. On Linux the kernel
// SIGKILLs the browser process when lyrad's ends (chrome's parent-death
// signal); no other system has one. So every browser also gets a
// watchdog: lyrad's own binary in a hidden mode (WatchdogVerb, RunWatchdog),
// a process of its own that holds one end of a channel from lyrad. lyrad
// tells it the browser's pid, and that the browser is gone once it is.
// When the channel closes first (lyrad was killed, panicked, ran out of
// memory), the watchdog kills the browser's process group (its process
// tree on Windows) and exits.
//
// Where a socket can be passed (Unix), the watchdog also holds lyrad's CDP
// connection to the browser. Chrome lets every request the guard has
// paused go the moment its DevTools client disconnects, and a dying
// process's sockets are closed before its parent-death signal is sent: a
// post the guard held could leave in between. With the watchdog holding
// it, the connection stays open until the browser is dead. A connection
// cut under a running lyrad (the socket itself destroyed) still reaches
// Chrome at once, and lyrad kills the browser as before.

// WatchdogVerb is the hidden command that runs the watchdog: `<lyrad>
// __watchdog`, with the channel from lyrad on its standard input.
const WatchdogVerb = "__watchdog"

// The channel carries lines: "pid N" (the browser to kill), "hold" (with
// the CDP socket passed alongside, Unix only) and "gone" (the browser
// exited: leave without killing anything).
const (
	msgPid  = "pid "
	msgHold = "hold"
	msgGone = "gone"
)

// watchdogState is what the watchdog has been told.
type watchdogState struct {
	pid  int
	gone bool
}

// line applies one line of the channel.
func (s *watchdogState) line(l string) {
	switch {
	case l == msgGone:
		s.gone = true
	case strings.HasPrefix(l, msgPid):
		if pid, err := strconv.Atoi(strings.TrimPrefix(l, msgPid)); err == nil && pid > 0 {
			s.pid = pid
		}
	}
}

// feed applies every complete line in buf and returns what is left of it.
func (s *watchdogState) feed(buf []byte) []byte {
	for {
		i := strings.IndexByte(string(buf), '\n')
		if i < 0 {
			return buf
		}
		s.line(string(buf[:i]))
		buf = buf[i+1:]
	}
}
