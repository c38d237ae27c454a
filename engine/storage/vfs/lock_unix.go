//go:build unix

package vfs

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// LocksSupported reports whether Default's Lock excludes other processes.
const LocksSupported = true

// flock takes an exclusive flock(2) on f without waiting. flock locks the
// open file description, not the name: deleting or replacing the file
// (or the directory) at that name leaves the lock with its holder, and a
// second open of the same name in this process conflicts like another
// process would.
func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case err == unix.EINTR:
			continue
		case errors.Is(err, unix.EWOULDBLOCK):
			return ErrLocked
		}
		return err
	}
}
