//go:build !linux

package wal

import (
	"errors"
	"os"
)

// allocate is not available here: segments grow as they are written.
func allocate(*os.File, int64) error { return errors.ErrUnsupported }
