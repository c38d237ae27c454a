//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package http

import "io/fs"

// filesystemBytes is not measured on this platform: zeros.
func filesystemBytes(string) (total, free int64) { return 0, 0 }

// diskBytes is a file's size where allocated blocks are not known.
func diskBytes(fi fs.FileInfo) int64 { return fi.Size() }
