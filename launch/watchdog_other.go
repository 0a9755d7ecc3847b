//go:build !unix && !windows

package launch

import (
	"net"

	"go.uber.org/zap"
)

// No watchdog here: nothing ends the browser if lyrad is killed.
type watchdog struct{}

func startWatchdog(string, *zap.Logger) *watchdog { return nil }
func (*watchdog) watch(int)                       {}
func (*watchdog) hold(net.Conn)                   {}
func (*watchdog) release()                        {}

// RunWatchdog does nothing on this system.
func RunWatchdog() int { return 0 }
