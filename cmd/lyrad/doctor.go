package main

import (
	"fmt"
	"io"
)

func cmdDoctor(args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "lyrad doctor: not built yet")
	return 1
}
