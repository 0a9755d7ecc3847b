//go:build !unix

package datadir

import (
	"errors"
	"os"
)

func tryLock(*os.File) (bool, error) { return false, errors.ErrUnsupported }
func unlock(*os.File)                {}
