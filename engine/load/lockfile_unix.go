//go:build unix

package load

import (
	"errors"
	"os"
	"syscall"
)

// lockFile creates path and takes an exclusive lock on it, held until
// unlock or the process's end.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// tryLockFile locks an existing path without waiting; it fails while
// another process holds the lock.
func tryLockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.New("held by another process")
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
