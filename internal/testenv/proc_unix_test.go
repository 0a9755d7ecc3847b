//go:build unix

package testenv

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	st, ok := parseStat("42 (a) b) (c) Z 1 77 77 0")
	if !ok || st.state != 'Z' || st.pgrp != 77 || st.running() {
		t.Errorf("parseStat = %+v, %v", st, ok)
	}
	if _, ok := parseStat("garbage"); ok {
		t.Error("parsed a line with no comm")
	}
}

func TestRunning(t *testing.T) {
	if !Running(os.Getpid()) {
		t.Error("this process is not running")
	}
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	pid := cmd.Process.Pid
	if !Running(pid) || !GroupRunning(pid) {
		t.Fatal("a sleeping child is not running")
	}
	cmd.Process.Kill()
	// Killed but not yet reaped: a zombie, which counts as gone.
	for i := 0; i < 500 && Running(pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if Running(pid) || GroupRunning(pid) {
		t.Error("a killed child still counts as running")
	}
	cmd.Wait()
	if Running(pid) {
		t.Error("a reaped child still counts as running")
	}
}
