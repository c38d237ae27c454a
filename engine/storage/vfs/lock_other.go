//go:build !unix

package vfs

import "os"

// LocksSupported reports whether Default's Lock excludes other processes.
const LocksSupported = false

// flock cannot lock here: nothing keeps a second process out.
func flock(*os.File) error { return nil }
