package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// One process per data directory. The process that opens a directory
// takes two exclusive flocks, held for as long as it runs, which the
// kernel drops when the process dies, however it dies:
//
//   - on the directory itself. A lock belongs to the open directory, not
//     to a name inside it: deleting or replacing any file leaves it in
//     place, so a second server is refused whatever happened to LOCK.
//   - on D/LOCK, which also records the holder's process id (for the
//     message a second process prints) and its writer id, and which
//     versions that predate the directory lock take.
//
// Where the directory cannot be locked (a network filesystem may refuse
// a lock on a descriptor not open for writing), LOCK's lock alone
// excludes, and the writer identity catches a second writer that gets in
// anyway (writer.go): the log and the checkpoints carry it, and the
// holder checks around every log sync that LOCK, when it exists, still
// names it (CheckDataDirOwner), so that it stops acknowledging commits
// once another process has claimed the directory.
//
//	LOCK: <pid>\n
//	      writer <16 hex digits>\n

// DataDirLockName is the lock file of a data directory.
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

// LockDataDir takes the exclusive locks of dir, which must exist, and
// records this process's id and writer in its LOCK file. Call release
// when the process stops using the directory.
func LockDataDir(fsys vfs.FS, dir string, writer uint64) (release func(), err error) {
	path := filepath.Join(dir, DataDirLockName)
	dirLock, err := fsys.Lock(dir)
	switch {
	case errors.Is(err, vfs.ErrLocked):
		return nil, &DirInUseError{Dir: dir, PID: lockHolder(fsys, path)}
	case err != nil:
		dirLock = nil // not lockable here: LOCK's lock alone excludes
	}
	unlockDir := func() {
		if dirLock != nil {
			dirLock.Close()
		}
	}
	f, err := fsys.OpenFile(path, os.O_CREATE|os.O_RDWR)
	if err != nil {
		unlockDir()
		return nil, fmt.Errorf("cannot create the data directory's lock file: %w", err)
	}
	defer f.Close()
	fileLock, err := fsys.Lock(path)
	if errors.Is(err, vfs.ErrLocked) {
		unlockDir()
		return nil, &DirInUseError{Dir: dir, PID: lockHolder(fsys, path)}
	}
	if err != nil {
		unlockDir()
		return nil, fmt.Errorf("cannot lock the data directory: %w", err)
	}
	release = func() {
		fileLock.Close()
		unlockDir()
	}
	// The pid is for the message a second process prints, the writer for
	// the holder's checks (CheckDataDirOwner); the locks are what exclude.
	content := []byte(strconv.Itoa(os.Getpid()) + "\nwriter " + formatWriter(writer) + "\n")
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt(content, 0)
	}
	if err != nil {
		release()
		return nil, fmt.Errorf("cannot write the data directory's lock file: %w", err)
	}
	return release, nil
}

// DataDirHeld reports whether a process holds dir, with its error; a
// directory nobody locked is not held.
func DataDirHeld(dir string) error {
	path := filepath.Join(dir, DataDirLockName)
	for _, p := range []string{dir, path} {
		l, err := vfs.Default.Lock(p)
		if errors.Is(err, vfs.ErrLocked) {
			return &DirInUseError{Dir: dir, PID: lockHolder(vfs.Default, path)}
		}
		if err == nil {
			l.Close()
		}
	}
	return nil
}

// lockHolder reads the process id a lock file records, 0 when it holds
// none.
func lockHolder(fsys vfs.FS, path string) int {
	b, err := vfs.ReadFile(fsys, path)
	if err != nil {
		return 0
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// OwnerCheck returns a CheckDataDirOwner of dir for writer that reads LOCK
// only when its size or modification time changed since it last did: one
// stat per call, where the log's group-commit rounds call it around every
// sync. A rewrite of LOCK by another process gets a modification time
// past the one this process wrote it with. Not safe for concurrent use
// (a round calls it under the log's sync lock).
func OwnerCheck(fsys vfs.FS, dir string, writer uint64) func() error {
	path := filepath.Join(dir, DataDirLockName)
	var size int64 = -1
	var mtime time.Time
	return func() error {
		st, err := fsys.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("cannot stat the data directory's lock file: %w", err)
		}
		if st.Size() == size && st.ModTime().Equal(mtime) {
			return nil
		}
		if err := CheckDataDirOwner(fsys, dir, writer); err != nil {
			return err
		}
		size, mtime = st.Size(), st.ModTime()
		return nil
	}
}

// CheckDataDirOwner returns an *OtherWriterError when dir's LOCK file
// names another holder than writer: another process (a second server
// where the locks do not work, or a version that predates the directory
// lock, which writes its pid alone) claimed the directory. A missing LOCK
// is no claim: the directory lock still excludes.
func CheckDataDirOwner(fsys vfs.FS, dir string, writer uint64) error {
	path := filepath.Join(dir, DataDirLockName)
	b, err := vfs.ReadFile(fsys, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read the data directory's lock file: %w", err)
	}
	if strings.Contains(string(b), "\nwriter "+formatWriter(writer)+"\n") {
		return nil
	}
	holder := "another process"
	if pid := lockHolder(fsys, path); pid > 0 {
		holder = fmt.Sprintf("another process (pid %d)", pid)
	}
	return &OtherWriterError{Detail: fmt.Sprintf("%s claimed it (its LOCK file no longer names this server)", holder)}
}
