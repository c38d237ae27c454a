package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// DataDirLockName is the file of a data directory whose exclusive lock
// the process using the directory holds for as long as it runs: one
// process per data directory. The kernel drops the lock when the process
// dies, however it dies, so a left-over file locks nothing.
const DataDirLockName = "LOCK"

// DirInUseError is the error of a data directory another process (or
// another open in this one) holds.
type DirInUseError struct {
	Dir string
	PID int // the holder's process id, 0 when the lock file does not say
}

func (e *DirInUseError) Error() string {
	holder := "another process"
	if e.PID > 0 {
		holder = fmt.Sprintf("another process (pid %d)", e.PID)
	}
	return fmt.Sprintf("data directory %s is in use by %s: one Quiver process serves or imports a data directory at a time", e.Dir, holder)
}

// LockDataDir takes the exclusive lock of dir, which must exist, and
// records this process's id in it. Call release when the process stops
// using the directory.
func LockDataDir(dir string) (release func(), err error) {
	path := filepath.Join(dir, DataDirLockName)
	unlock, err := LockFile(path)
	if errors.Is(err, syscallWouldBlock) {
		return nil, &DirInUseError{Dir: dir, PID: lockHolder(path)}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot lock the data directory: %w", err)
	}
	// The pid is for the message a second process prints; the lock, not
	// the file's content, is what excludes it.
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		unlock()
		return nil, fmt.Errorf("cannot write the data directory's lock file: %w", err)
	}
	return unlock, nil
}

// DataDirHeld reports whether a process holds dir's lock, with its error;
// a directory without a lock file is not held.
func DataDirHeld(dir string) error {
	path := filepath.Join(dir, DataDirLockName)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	unlock, err := TryLockFile(path)
	if errors.Is(err, errLocksUnsupported) {
		return nil // nothing can tell here
	}
	if err != nil {
		return &DirInUseError{Dir: dir, PID: lockHolder(path)}
	}
	unlock()
	return nil
}

// lockHolder reads the process id a lock file records, 0 when it holds
// none.
func lockHolder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
