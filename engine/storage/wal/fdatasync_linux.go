package wal

import (
	"os"

	"golang.org/x/sys/unix"
)

// fdatasync flushes f's data and the metadata needed to read it back (its
// size), skipping the times fsync would also write.
func fdatasync(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	// Control holds a reference on the descriptor for the call, so a
	// concurrent Close cannot pull it away mid-sync.
	cerr := rc.Control(func(fd uintptr) {
		for {
			err = unix.Fdatasync(int(fd))
			if err != unix.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return cerr
	}
	return err
}
