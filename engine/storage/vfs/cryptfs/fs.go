package cryptfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Keys gives the generation keys files are encrypted with: the current one
// for new files, any for reads. A Keyring is one.
type Keys interface {
	Current() (gen uint32, key []byte)
	Key(gen uint32) ([]byte, bool)
}

// FS encrypts the files of another vfs.FS. Names whose base is in Plain
// (the keyring) pass through unencrypted.
type FS struct {
	base  vfs.FS
	keys  Keys
	plain map[string]bool

	// rw is held by Rewrite, and read-held by Remove, Rename and opens
	// for writing: a rewrite never races them.
	rw sync.RWMutex

	mu sync.Mutex
	// files are the states of the open files, and of closed ones with
	// writes not yet synced (whose durable slots must still be known).
	files map[string]*fileState
}

var _ vfs.FS = (*FS)(nil)

// New returns the FS that encrypts base's files with keys. Files whose
// base name is one of plain are stored as they are.
func New(base vfs.FS, keys Keys, plain ...string) *FS {
	f := &FS{base: base, keys: keys, plain: map[string]bool{}, files: map[string]*fileState{}}
	for _, p := range plain {
		f.plain[p] = true
	}
	return f
}

// Base is the filesystem underneath.
func (c *FS) Base() vfs.FS { return c.base }

func (c *FS) isPlain(name string) bool { return c.plain[filepath.Base(name)] }

// OpenFile opens name; see vfs.FS.
func (c *FS) OpenFile(name string, flag int) (vfs.File, error) {
	if c.isPlain(name) {
		return c.base.OpenFile(name, flag)
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		c.rw.RLock()
		defer c.rw.RUnlock()
	}
	return c.openLocked(name, flag)
}

// openLocked opens name, with rw held by the caller when flag writes.
func (c *FS) openLocked(name string, flag int) (vfs.File, error) {
	key := filepath.Clean(name)
	// The underlying file is always opened for reading too: a partial
	// block is read back to be rewritten. O_APPEND is this package's.
	bflag := flag &^ (os.O_APPEND | os.O_WRONLY | os.O_RDONLY | os.O_RDWR)
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		bflag |= os.O_RDWR
	} else {
		bflag |= os.O_RDONLY
	}
	bf, err := c.base.OpenFile(name, bflag)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.files[key]
	if st != nil && flag&os.O_TRUNC != 0 {
		st.reset()
	}
	if st == nil {
		if st, err = c.loadState(bf, name); err != nil {
			bf.Close()
			return nil, err
		}
		// A process that died left writes in the page cache that this
		// one would take for durable slots: make them so.
		if flag&(os.O_WRONLY|os.O_RDWR) != 0 && st.hasHdr {
			if err := bf.Sync(); err != nil {
				bf.Close()
				return nil, err
			}
		}
		c.files[key] = st
	}
	st.refs++
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		st.writers++
	}
	return &file{fs: c, st: st, f: bf, name: name, key: key, append: flag&os.O_APPEND != 0, write: flag&(os.O_WRONLY|os.O_RDWR) != 0}, nil
}

// loadState reads the header and the size of an opened file.
func (c *FS) loadState(bf vfs.File, name string) (*fileState, error) {
	fi, err := bf.Stat()
	if err != nil {
		return nil, err
	}
	st := newFileState(name, c.keys)
	if fi.Size() < headerSize {
		return st, nil // empty, or a header torn before anything was synced
	}
	hb := make([]byte, headerSize)
	if _, err := bf.ReadAt(hb, 0); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", name, err)
	}
	h, err := decodeHeader(hb)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", name, err)
	}
	if err := st.setHeader(h); err != nil {
		return nil, err
	}
	if err := st.loadSize(bf, fi.Size()); err != nil {
		return nil, err
	}
	return st, nil
}

// release drops a file's state once nothing holds it.
func (c *FS) release(key string, st *fileState, wrote bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st.refs--
	if wrote {
		st.writers--
	}
	if st.refs == 0 && !st.hasDirty() && c.files[key] == st {
		delete(c.files, key)
	}
}

// OpenDir opens a directory; see vfs.FS.
func (c *FS) OpenDir(name string) (vfs.File, error) { return c.base.OpenDir(name) }

// Mkdir creates a directory; see vfs.FS.
func (c *FS) Mkdir(name string) error { return c.base.Mkdir(name) }

// Remove removes a file or an empty directory; see vfs.FS.
func (c *FS) Remove(name string) error {
	c.rw.RLock()
	defer c.rw.RUnlock()
	if err := c.base.Remove(name); err != nil {
		return err
	}
	c.mu.Lock()
	delete(c.files, filepath.Clean(name))
	c.mu.Unlock()
	return nil
}

// RemoveAll removes name and everything under it; see vfs.FS.
func (c *FS) RemoveAll(name string) error {
	c.rw.RLock()
	defer c.rw.RUnlock()
	if err := c.base.RemoveAll(name); err != nil {
		return err
	}
	prefix := filepath.Clean(name) + string(filepath.Separator)
	c.mu.Lock()
	for k := range c.files {
		if k == filepath.Clean(name) || len(k) > len(prefix) && k[:len(prefix)] == prefix {
			delete(c.files, k)
		}
	}
	c.mu.Unlock()
	return nil
}

// Rename renames a file; see vfs.FS.
func (c *FS) Rename(oldname, newname string) error {
	c.rw.RLock()
	defer c.rw.RUnlock()
	return c.renameLocked(oldname, newname)
}

func (c *FS) renameLocked(oldname, newname string) error {
	if err := c.base.Rename(oldname, newname); err != nil {
		return err
	}
	o, n := filepath.Clean(oldname), filepath.Clean(newname)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.files, n)
	if st := c.files[o]; st != nil {
		delete(c.files, o)
		st.path = newname
		c.files[n] = st
	}
	return nil
}

// ReadDir lists a directory; an entry's Info has the plaintext size.
func (c *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	es, err := c.base.ReadDir(name)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(es))
	for i, e := range es {
		out[i] = dirEntry{DirEntry: e, fs: c, path: filepath.Join(name, e.Name())}
	}
	return out, nil
}

// Stat describes name, with a file's plaintext size.
func (c *FS) Stat(name string) (fs.FileInfo, error) {
	fi, err := c.base.Stat(name)
	if err != nil || !fi.Mode().IsRegular() || c.isPlain(name) {
		return fi, err
	}
	f, err := c.OpenFile(name, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

// Chmod sets name's permission bits; see vfs.FS.
func (c *FS) Chmod(name string, mode fs.FileMode) error { return c.base.Chmod(name, mode) }

// Lock locks name; see vfs.FS.
func (c *FS) Lock(name string) (io.Closer, error) { return c.base.Lock(name) }

type dirEntry struct {
	fs.DirEntry
	fs   *FS
	path string
}

func (d dirEntry) Info() (fs.FileInfo, error) {
	if !d.Type().IsRegular() {
		return d.DirEntry.Info()
	}
	return d.fs.Stat(d.path)
}

// fileInfo is a file's FileInfo with its plaintext size.
type fileInfo struct {
	fs.FileInfo
	size int64
}

func (f fileInfo) Size() int64        { return f.size }
func (f fileInfo) ModTime() time.Time { return f.FileInfo.ModTime() }

// pathError names the file of an error.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}
