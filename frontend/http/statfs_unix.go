//go:build linux || darwin || freebsd || netbsd || openbsd

package http

import (
	"io/fs"
	"syscall"
)

// filesystemBytes reports the size of the filesystem holding path and the
// bytes on it available to an unprivileged user (statfs); zeros when it
// cannot be read.
func filesystemBytes(path string) (total, free int64) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, 0
	}
	bsize := int64(st.Bsize)
	return int64(st.Blocks) * bsize, int64(st.Bavail) * bsize
}

// diskBytes is the disk space a file occupies (allocated blocks, as du
// counts them): a preallocated log segment counts whole, a sparse file
// only where written.
func diskBytes(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int64(st.Blocks) * 512
	}
	return fi.Size()
}
