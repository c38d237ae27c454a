package vfs

import (
	"io"
	"io/fs"
	"os"
)

// Default is the operating system's filesystem.
var Default FS = osFS{}

// osFS is the operating system's filesystem, creating files FileMode and
// directories DirMode.
type osFS struct{}

func (osFS) OpenFile(name string, flag int) (File, error) {
	f, err := os.OpenFile(name, flag, FileMode)
	if err != nil {
		return nil, err
	}
	if flag&os.O_CREATE != 0 {
		// The umask can only take bits away, and a file that existed
		// keeps its mode: either way, set it to exactly FileMode.
		if err := ensureMode(f, FileMode); err != nil {
			f.Close()
			return nil, err
		}
	}
	return &osFile{File: f}, nil
}

func (osFS) OpenDir(name string) (File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return &osFile{File: f}, nil
}

func (osFS) Mkdir(name string) error {
	if err := os.Mkdir(name, DirMode); err != nil {
		return err
	}
	// Mkdir's mode goes through the umask; a restrictive one could leave
	// the owner without access, a mode the server never wants.
	return os.Chmod(name, DirMode)
}

func (osFS) Remove(name string) error                   { return os.Remove(name) }
func (osFS) RemoveAll(name string) error                { return os.RemoveAll(name) }
func (osFS) Rename(oldname, newname string) error       { return os.Rename(oldname, newname) }
func (osFS) Stat(name string) (fs.FileInfo, error)      { return os.Stat(name) }
func (osFS) Chmod(name string, mode fs.FileMode) error  { return os.Chmod(name, mode) }
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }

func (osFS) Lock(name string) (io.Closer, error) {
	f, err := os.Open(name) // a directory too: flock takes any descriptor
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "lock", Path: name, Err: err}
	}
	return f, nil
}

// ensureMode sets f's permission bits to mode unless they are already.
func ensureMode(f *os.File, mode fs.FileMode) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Mode().Perm() == mode {
		return nil
	}
	return f.Chmod(mode)
}

// osFile is an *os.File with fdatasync and preallocation.
type osFile struct{ *os.File }

func (f *osFile) SyncData() error              { return fdatasync(f.File) }
func (f *osFile) Preallocate(size int64) error { return preallocate(f.File, size) }
