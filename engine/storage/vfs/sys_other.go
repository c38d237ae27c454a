//go:build !linux

package vfs

import (
	"errors"
	"os"
)

// fdatasync falls back to a full fsync where x/sys offers no fdatasync
// (on darwin, os.File.Sync is F_FULLFSYNC, which is what durability needs).
func fdatasync(f *os.File) error { return f.Sync() }

// preallocate is not available here: files grow as they are written.
func preallocate(*os.File, int64) error { return errors.ErrUnsupported }
