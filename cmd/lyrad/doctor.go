package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/lyrad/lyrad/doctor"
)

// cmdDoctor checks, from the outside, what lyrad claims about the browser's
// debugging port and its own front doors. It launches a throwaway browser the
// way serve does and never touches a running daemon's browser.
func cmdDoctor(args []string, stdout, stderr io.Writer) int {
	var jsonOut bool
	o, code := parse("doctor", args, stderr, false, func(fs *flag.FlagSet) {
		fs.BoolVar(&jsonOut, "json", false, "print one JSON object instead of text")
	})
	if o == nil {
		return code
	}
	ctx, stop := signals()
	defer stop()
	channel, exe := browserChoice(o.chrome)
	r := doctor.Run(ctx, doctor.Options{
		DataDir: o.dataDir, Channel: channel, Executable: exe, Headless: o.headless, Proxy: o.proxy,
	})
	if jsonOut {
		if err := r.WriteJSON(stdout); err != nil {
			fmt.Fprintln(stderr, "lyrad doctor:", err)
			return 1
		}
	} else {
		r.WriteText(stdout)
	}
	if !r.OK {
		return 1
	}
	return 0
}
