//go:build !linux

package chrome

import "errors"

// Without /proc a process's start time is unknown, so no pid file is
// written and no orphan is looked for.
func procStart(int) (string, error) { return "", errors.ErrUnsupported }
func orphanProcs(pidRecord) []int   { return nil }
func killProcs(pidRecord, []int)    {}
