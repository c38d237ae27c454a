//go:build !linux

package wal

import "os"

// fdatasync falls back to a full fsync where x/sys offers no fdatasync
// (on darwin, os.File.Sync is F_FULLFSYNC, which is what durability needs).
func fdatasync(f *os.File) error { return f.Sync() }
