package main

import (
	"fmt"
	"io"
	"os"

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
		fmt.Fprintf(stdout, "installed, but not what install would write now (another binary or data directory?): %s\n  lyrad service install   rewrites it\n", p.path)
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
