//go:build !unix

package load

import (
	"errors"
	"os"
)

// lockFile creates path. Without flock the file only marks the staging
// directory; abandoned directories are then never removed automatically.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

// tryLockFile cannot tell a running import from an abandoned one here:
// it always reports the file held.
func tryLockFile(string) (unlock func(), err error) {
	return nil, errors.New("file locks are not supported on this system")
}
