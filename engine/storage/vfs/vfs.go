// Package vfs is the filesystem the durable parts of Quiver write through:
// the write-ahead log, checkpoints (base files and the manifest), the
// data directory's lock and the audit trail. Default is the operating
// system's; MemFS is a strict in-memory one for tests that remembers what
// was synced and can cut the power (memfs.go), or fail with a full disk.
//
// The interface is the small set of operations those parts need, with
// the sync points explicit: a file's data is durable only after Sync or
// SyncData, and a directory entry (a create, a rename, a removal) only
// after the directory itself is synced (OpenDir + Sync). Code written
// against it cannot lean on what the page cache happens to keep after a
// crash, because the power-loss tests run it on MemFS, which keeps
// nothing else.
//
// Every file the default filesystem creates is FileMode (0600) and every
// directory DirMode (0700), whatever the process's umask: the data
// directory holds password hashes and token keys.
//
// vfs imports nothing of Quiver.
package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Modes of what Quiver creates: owner only.
const (
	FileMode fs.FileMode = 0o600
	DirMode  fs.FileMode = 0o700
)

// FS is a filesystem. Names are paths as filepath builds them.
type FS interface {
	// OpenFile opens name with the os.O_* flags (O_RDONLY, O_WRONLY,
	// O_RDWR, with O_CREATE, O_EXCL, O_TRUNC, O_APPEND). A file it
	// creates has FileMode. A created file's entry is durable only once
	// its directory is synced.
	OpenFile(name string, flag int) (File, error)
	// OpenDir opens a directory, to Sync its entries.
	OpenDir(name string) (File, error)
	// Mkdir creates one directory with DirMode.
	Mkdir(name string) error
	// Remove removes a file or an empty directory.
	Remove(name string) error
	// RemoveAll removes name and everything under it; a missing name is
	// not an error.
	RemoveAll(name string) error
	// Rename renames oldname to newname, replacing newname atomically.
	Rename(oldname, newname string) error
	// ReadDir lists a directory, sorted by name.
	ReadDir(name string) ([]fs.DirEntry, error)
	// Stat describes name.
	Stat(name string) (fs.FileInfo, error)
	// Chmod sets name's permission bits.
	Chmod(name string, mode fs.FileMode) error
	// Lock takes an exclusive lock on the existing file or directory
	// name, without waiting, held until the Closer is closed or the
	// process ends. A lock another holder has fails with an error
	// wrapping ErrLocked. Removing or renaming name does not release it.
	Lock(name string) (io.Closer, error)
}

// File is an open file or directory.
type File interface {
	io.Reader
	io.ReaderAt
	io.Writer
	io.WriterAt
	io.Closer
	// Name is the name the file was opened with.
	Name() string
	Stat() (fs.FileInfo, error)
	// Sync makes the file's data and metadata durable (fsync); for a
	// directory, its entries.
	Sync() error
	// SyncData makes the file's data durable, and the metadata needed to
	// read it back (its size), but not its times (fdatasync).
	SyncData() error
	// Truncate sets the file's size. The new size is durable after a sync.
	Truncate(size int64) error
	// Preallocate gives the file size bytes, read as zeros, when it has
	// fewer. The new size is durable after a sync. It returns an error
	// wrapping errors.ErrUnsupported where the filesystem cannot, and the
	// file then grows as it is written.
	Preallocate(size int64) error
}

// ErrLocked is the error of a Lock that another holder has.
var ErrLocked = errors.New("vfs: locked by another holder")

// ReadFile reads the whole file name.
func ReadFile(fsys FS, name string) ([]byte, error) {
	f, err := fsys.OpenFile(name, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	b := make([]byte, st.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return b[:n], nil
}

// WriteFileSync creates (or truncates) name, writes b and syncs it. The
// entry itself is durable once the caller syncs the directory.
func WriteFileSync(fsys FS, name string, b []byte) error {
	f, err := fsys.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SyncDir fsyncs the directory dir, so that the creations, renames and
// removals of entries in it survive a power loss.
func SyncDir(fsys FS, dir string) error {
	d, err := fsys.OpenDir(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return err
	}
	return d.Close()
}

// MkdirAllSync creates dir and any missing parents with DirMode, and
// syncs the parent of every directory it creates, so that the new
// directories survive a power loss. It reports whether it created dir.
func MkdirAllSync(fsys FS, dir string) (created bool, err error) {
	dir = filepath.Clean(dir)
	st, err := fsys.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return false, &fs.PathError{Op: "mkdir", Path: dir, Err: errors.New("not a directory")}
		}
		return false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	parent := filepath.Dir(dir)
	if parent != dir {
		if _, err := MkdirAllSync(fsys, parent); err != nil {
			return false, err
		}
	}
	if err := fsys.Mkdir(dir); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil // another creator won the race
		}
		return false, err
	}
	if parent != dir {
		if err := SyncDir(fsys, parent); err != nil {
			return true, err
		}
	}
	return true, nil
}

// Exists reports whether name exists (false on any error).
func Exists(fsys FS, name string) bool {
	_, err := fsys.Stat(name)
	return err == nil
}
