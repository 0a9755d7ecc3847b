//go:build lyrad_testpanic

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// A test build (go build -tags lyrad_testpanic) panics in a goroutine on
// SIGUSR1, the way a bug would: nothing recovers it and no deferred
// shutdown runs. The end-to-end tests check that the browser dies with it.
func init() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		<-ch
		panic("lyrad_testpanic: SIGUSR1")
	}()
}
