package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lyrad/lyrad/datadir"
)

// serviceStatus says whether the unit is installed and whether it is the
// one install would write now (same binary, same arguments), and whether a
// daemon holds the data directory. Whether the service manager runs it is
// the service manager's to say: the commands are printed.
func serviceStatus(p *servicePlatform, d datadir.Dir, stdout io.Writer) int {
	b, err := os.ReadFile(p.path)
	switch {
	case err != nil:
		fmt.Fprintf(stdout, "not installed (%s absent): lyrad service install\n", p.path)
	case string(b) == p.contents:
		fmt.Fprintf(stdout, "installed: %s\n", p.path)
	default:
		fmt.Fprintf(stdout, "installed, but not what install would write now with these flags (another binary, data directory or flags?): %s\n", p.path)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "ExecStart=") {
				fmt.Fprintf(stdout, "  it runs:     %s\n  it would be: %s\n", strings.TrimPrefix(l, "ExecStart="), execStart(p.contents))
			}
		}
		fmt.Fprintln(stdout, "  lyrad service install [serve's flags]   rewrites it")
	}
	s := readDaemonState(d)
	if s.Running {
		fmt.Fprintf(stdout, "a daemon holds %s: pid %d\n", d.Root(), s.PID)
	} else {
		fmt.Fprintf(stdout, "no daemon holds %s\n", d.Root())
	}
	fmt.Fprintln(stdout, "the service manager's view:")
	for _, c := range p.status {
		fmt.Fprintln(stdout, "  "+c)
	}
	return 0
}

// execStart is a systemd unit's command line.
func execStart(unit string) string {
	for _, l := range strings.Split(unit, "\n") {
		if strings.HasPrefix(l, "ExecStart=") {
			return strings.TrimPrefix(l, "ExecStart=")
		}
	}
	return ""
}
