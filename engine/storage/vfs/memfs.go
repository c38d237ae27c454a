package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MemFS is a strict in-memory filesystem for tests of durability. Besides
// the current state that reads see, it keeps what a power loss would
// leave:
//
//   - a file's synced content: its bytes and size at its last Sync or
//     SyncData. Writes, truncations and preallocations after it are lost
//     by a crash; so a preallocated size counts only once synced.
//   - a directory's synced entries: the names it held at its last Sync.
//     A file created, renamed or removed since is back where it was
//     after a crash, even if the file's own data was synced.
//
// Crash returns the image a power cut leaves, as a new MemFS to reopen
// the database on; the old one (and whatever still runs against it) is
// left alone. SetHook takes such images at chosen operations (the
// power-loss tests' crash points), SetFault makes operations fail (a
// full disk).
//
// Paths are slash-separated and taken from the root: "/d/wal" and "d/wal"
// name the same directory. Locks (Lock) exclude other holders in the same
// MemFS, as flock excludes other processes, unless SetLocking(false)
// makes them succeed always (a filesystem whose locks do not work, to
// test what else catches a second writer).
type MemFS struct {
	// mu guards the tree, the locks and the hooks; every operation holds
	// it, so the hook sees the filesystem between two operations.
	mu      sync.Mutex
	root    *memNode
	locks   map[*memNode]bool
	noLocks bool
	hook    Hook
	fault   func(Op) error
	ops     int64
}

// NewMem returns an empty MemFS.
func NewMem() *MemFS {
	return &MemFS{root: newDirNode(), locks: map[*memNode]bool{}}
}

// OpKind is the kind of a changing operation.
type OpKind uint8

// The operations that change the filesystem or make it durable.
const (
	OpCreate      OpKind = iota // a file created by OpenFile
	OpWrite                     // Write or WriteAt
	OpTruncate                  // Truncate, or OpenFile with O_TRUNC
	OpPreallocate               // Preallocate
	OpSync                      // Sync or SyncData of a file
	OpSyncDir                   // Sync of a directory
	OpMkdir                     // Mkdir
	OpRemove                    // Remove or RemoveAll
	OpRename                    // Rename
	OpChmod                     // Chmod
)

var opNames = [...]string{"create", "write", "truncate", "preallocate", "sync", "syncdir", "mkdir", "remove", "rename", "chmod"}

func (k OpKind) String() string { return opNames[k] }

// IsSync reports whether the operation is a sync point.
func (k OpKind) IsSync() bool { return k == OpSync || k == OpSyncDir }

// Op is one operation, as hooks see it.
type Op struct {
	Kind OpKind
	Path string
	// Seq numbers the operations of the MemFS from 1.
	Seq int64
}

func (o Op) String() string { return fmt.Sprintf("#%d %s %s", o.Seq, o.Kind, o.Path) }

// A Hook is called before each operation, with the MemFS locked: it must
// not use the MemFS. crash returns the image a power cut at this moment
// would leave, as Crash does.
type Hook func(op Op, crash func(torn *rand.Rand) *MemFS)

// SetHook installs h (nil removes it).
func (m *MemFS) SetHook(h Hook) {
	m.mu.Lock()
	m.hook = h
	m.mu.Unlock()
}

// SetFault makes every operation for which fn returns an error fail with
// it, before it changes anything (nil removes it). A full disk is
// SetFault returning ENOSPC for OpWrite, OpPreallocate and OpSync.
func (m *MemFS) SetFault(fn func(Op) error) {
	m.mu.Lock()
	m.fault = fn
	m.mu.Unlock()
}

// SetLocking turns Lock's exclusion on (the default) or off.
func (m *MemFS) SetLocking(on bool) {
	m.mu.Lock()
	m.noLocks = !on
	m.mu.Unlock()
}

// Crash returns what a power cut now leaves: every directory with its
// synced entries, every file with its synced content. With torn != nil,
// some of what was not synced survives, as it may on a real disk: each
// directory keeps either its synced or its current entries, and each
// file its synced content overwritten by a prefix of its current one
// (writes reach the disk in file order, cut at a random byte). The image
// is synced throughout and holds no locks.
func (m *MemFS) Crash(torn *rand.Rand) *MemFS {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.crashLocked(torn)
}

func (m *MemFS) crashLocked(torn *rand.Rand) *MemFS {
	seen := map[*memNode]*memNode{}
	var clone func(n *memNode) *memNode
	clone = func(n *memNode) *memNode {
		if c := seen[n]; c != nil {
			return c
		}
		c := &memNode{dir: n.dir, mode: n.mode, mtime: n.mtime}
		seen[n] = c
		if n.dir {
			src := n.syncedKids
			if torn != nil && torn.IntN(2) == 0 {
				src = n.kids
			}
			c.kids = make(map[string]*memNode, len(src))
			for _, name := range sortedNames(src) {
				c.kids[name] = clone(src[name])
			}
			c.syncedKids = maps(c.kids)
			return c
		}
		data := slices.Clone(n.synced)
		if torn != nil && len(n.data) > 0 {
			cut := torn.IntN(len(n.data) + 1)
			if cut > len(data) {
				data = append(data, make([]byte, cut-len(data))...)
			}
			copy(data, n.data[:cut])
		}
		c.data, c.synced = data, slices.Clone(data)
		c.dirtyLo, c.dirtyHi = -1, -1
		return c
	}
	out := NewMem()
	out.root = clone(m.root)
	return out
}

// beginLocked numbers an operation, runs the hook, and returns the fault
// to fail it with, if any.
func (m *MemFS) beginLocked(kind OpKind, path string) error {
	m.ops++
	op := Op{Kind: kind, Path: path, Seq: m.ops}
	if m.hook != nil {
		m.hook(op, m.crashLocked)
	}
	if m.fault != nil {
		if err := m.fault(op); err != nil {
			return &fs.PathError{Op: kind.String(), Path: path, Err: err}
		}
	}
	return nil
}

// memNode is a file or a directory.
type memNode struct {
	dir   bool
	mode  fs.FileMode
	mtime time.Time
	// A file's current bytes, and its bytes at the last sync. dirtyLo and
	// dirtyHi bound the bytes changed since (-1: none), so a sync copies
	// those, not the whole file.
	data, synced     []byte
	dirtyLo, dirtyHi int64
	// A directory's current and synced entries.
	kids, syncedKids map[string]*memNode
}

func newDirNode() *memNode {
	return &memNode{dir: true, mode: fs.ModeDir | DirMode, kids: map[string]*memNode{}, syncedKids: map[string]*memNode{}, dirtyLo: -1, dirtyHi: -1}
}

func newFileNode() *memNode {
	return &memNode{mode: FileMode, dirtyLo: -1, dirtyHi: -1}
}

// dirty records that bytes [lo, hi) changed.
func (n *memNode) dirty(lo, hi int64) {
	if hi <= lo {
		return
	}
	if n.dirtyLo < 0 || lo < n.dirtyLo {
		n.dirtyLo = lo
	}
	if hi > n.dirtyHi {
		n.dirtyHi = hi
	}
	n.mtime = time.Now()
}

// resize sets a file's size; new bytes are zeros.
func (n *memNode) resize(size int64) {
	old := int64(len(n.data))
	switch {
	case size < old:
		n.dirty(size, old)
		n.data = n.data[:size]
	case size > old:
		// Zeros explicitly: a shrunk slice's old bytes must not reappear.
		n.data = append(n.data, make([]byte, size-old)...)
	}
}

// syncFile makes a file's current content its synced content.
func (n *memNode) syncFile() {
	size := int64(len(n.data))
	if int64(len(n.synced)) > size {
		n.synced = n.synced[:size]
	} else if int64(len(n.synced)) < size {
		n.synced = append(n.synced, make([]byte, size-int64(len(n.synced)))...)
	}
	if n.dirtyLo >= 0 {
		lo, hi := min(n.dirtyLo, size), min(n.dirtyHi, size)
		copy(n.synced[lo:hi], n.data[lo:hi])
	}
	n.dirtyLo, n.dirtyHi = -1, -1
}

func maps(m map[string]*memNode) map[string]*memNode {
	out := make(map[string]*memNode, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedNames(m map[string]*memNode) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// split cleans name into its components from the root.
func split(name string) []string {
	name = strings.TrimLeft(filepath.ToSlash(filepath.Clean("/"+name)), "/")
	if name == "" {
		return nil
	}
	return strings.Split(name, "/")
}

// lookupLocked returns the node at name, or an error.
func (m *MemFS) lookupLocked(op, name string) (*memNode, error) {
	n := m.root
	for _, c := range split(name) {
		if !n.dir {
			return nil, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
		}
		next := n.kids[c]
		if next == nil {
			return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		n = next
	}
	return n, nil
}

// parentLocked returns the directory that holds name, and name's last
// component.
func (m *MemFS) parentLocked(op, name string) (*memNode, string, error) {
	parts := split(name)
	if len(parts) == 0 {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: syscall.EINVAL}
	}
	dir, err := m.lookupLocked(op, strings.Join(parts[:len(parts)-1], "/"))
	if err != nil {
		return nil, "", err
	}
	if !dir.dir {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
	}
	return dir, parts[len(parts)-1], nil
}

// OpenFile opens name; see FS.
func (m *MemFS) OpenFile(name string, flag int) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base, err := m.parentLocked("open", name)
	if err != nil {
		return nil, err
	}
	n := dir.kids[base]
	switch {
	case n != nil && flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrExist}
	case n == nil && flag&os.O_CREATE == 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	case n == nil:
		if err := m.beginLocked(OpCreate, name); err != nil {
			return nil, err
		}
		n = newFileNode()
		dir.kids[base] = n
	case n.dir && flag&(os.O_WRONLY|os.O_RDWR) != 0:
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EISDIR}
	}
	acc := flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR)
	f := &memFile{fs: m, n: n, name: name, read: acc != os.O_WRONLY, write: acc != os.O_RDONLY, append: flag&os.O_APPEND != 0}
	if flag&os.O_TRUNC != 0 && f.write && len(n.data) > 0 {
		if err := m.beginLocked(OpTruncate, name); err != nil {
			return nil, err
		}
		n.resize(0)
	}
	return f, nil
}

// OpenDir opens a directory; see FS.
func (m *MemFS) OpenDir(name string) (File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookupLocked("open", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.ENOTDIR}
	}
	return &memFile{fs: m, n: n, name: name, read: true}, nil
}

// Mkdir creates a directory; see FS.
func (m *MemFS) Mkdir(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base, err := m.parentLocked("mkdir", name)
	if err != nil {
		return err
	}
	if dir.kids[base] != nil {
		return &fs.PathError{Op: "mkdir", Path: name, Err: fs.ErrExist}
	}
	if err := m.beginLocked(OpMkdir, name); err != nil {
		return err
	}
	dir.kids[base] = newDirNode()
	return nil
}

// Remove removes a file or an empty directory; see FS.
func (m *MemFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base, err := m.parentLocked("remove", name)
	if err != nil {
		return err
	}
	n := dir.kids[base]
	if n == nil {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	if n.dir && len(n.kids) > 0 {
		return &fs.PathError{Op: "remove", Path: name, Err: syscall.ENOTEMPTY}
	}
	if err := m.beginLocked(OpRemove, name); err != nil {
		return err
	}
	delete(dir.kids, base)
	return nil
}

// RemoveAll removes name and what it holds; see FS. Only name's entry in
// its parent changes: a crash before the parent is synced brings the
// whole tree back, as it was synced.
func (m *MemFS) RemoveAll(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	dir, base, err := m.parentLocked("remove", name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if dir.kids[base] == nil {
		return nil
	}
	if err := m.beginLocked(OpRemove, name); err != nil {
		return err
	}
	delete(dir.kids, base)
	return nil
}

// Rename renames oldname to newname; see FS.
func (m *MemFS) Rename(oldname, newname string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	odir, obase, err := m.parentLocked("rename", oldname)
	if err != nil {
		return err
	}
	n := odir.kids[obase]
	if n == nil {
		return &fs.PathError{Op: "rename", Path: oldname, Err: fs.ErrNotExist}
	}
	ndir, nbase, err := m.parentLocked("rename", newname)
	if err != nil {
		return err
	}
	if t := ndir.kids[nbase]; t != nil && t.dir && (!n.dir || len(t.kids) > 0) {
		return &fs.PathError{Op: "rename", Path: newname, Err: syscall.EEXIST}
	}
	if err := m.beginLocked(OpRename, oldname+" -> "+newname); err != nil {
		return err
	}
	delete(odir.kids, obase)
	ndir.kids[nbase] = n
	return nil
}

// ReadDir lists a directory by name; see FS.
func (m *MemFS) ReadDir(name string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookupLocked("readdir", name)
	if err != nil {
		return nil, err
	}
	if !n.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	out := make([]fs.DirEntry, 0, len(n.kids))
	for _, k := range sortedNames(n.kids) {
		out = append(out, fs.FileInfoToDirEntry(n.kids[k].info(k)))
	}
	return out, nil
}

// Stat describes name; see FS.
func (m *MemFS) Stat(name string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookupLocked("stat", name)
	if err != nil {
		return nil, err
	}
	return n.info(filepath.Base(name)), nil
}

// Chmod sets name's permission bits; see FS.
func (m *MemFS) Chmod(name string, mode fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookupLocked("chmod", name)
	if err != nil {
		return err
	}
	if err := m.beginLocked(OpChmod, name); err != nil {
		return err
	}
	n.mode = n.mode&^fs.ModePerm | mode.Perm()
	return nil
}

// Lock locks name; see FS.
func (m *MemFS) Lock(name string) (io.Closer, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, err := m.lookupLocked("lock", name)
	if err != nil {
		return nil, err
	}
	if m.noLocks {
		return &memLock{}, nil
	}
	if m.locks[n] {
		return nil, &fs.PathError{Op: "lock", Path: name, Err: ErrLocked}
	}
	m.locks[n] = true
	return &memLock{fs: m, n: n}, nil
}

type memLock struct {
	fs   *MemFS
	n    *memNode
	once sync.Once
}

func (l *memLock) Close() error {
	if l.fs != nil {
		l.once.Do(func() {
			l.fs.mu.Lock()
			delete(l.fs.locks, l.n)
			l.fs.mu.Unlock()
		})
	}
	return nil
}

func (n *memNode) info(name string) fs.FileInfo {
	return &memInfo{name: name, size: int64(len(n.data)), mode: n.mode, mtime: n.mtime}
}

type memInfo struct {
	name  string
	size  int64
	mode  fs.FileMode
	mtime time.Time
}

func (i *memInfo) Name() string       { return i.name }
func (i *memInfo) Size() int64        { return i.size }
func (i *memInfo) Mode() fs.FileMode  { return i.mode }
func (i *memInfo) ModTime() time.Time { return i.mtime }
func (i *memInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *memInfo) Sys() any           { return nil }

// memFile is an open MemFS file.
type memFile struct {
	fs                  *MemFS
	n                   *memNode
	name                string
	pos                 int64
	read, write, append bool
	closed              bool
}

var errClosed = errors.New("vfs: file already closed")

func (f *memFile) Name() string { return f.name }

func (f *memFile) check(op string, write bool) error {
	switch {
	case f.closed:
		return &fs.PathError{Op: op, Path: f.name, Err: errClosed}
	case write && (!f.write || f.n.dir):
		return &fs.PathError{Op: op, Path: f.name, Err: syscall.EBADF}
	case !write && !f.read:
		return &fs.PathError{Op: op, Path: f.name, Err: syscall.EBADF}
	case !write && f.n.dir:
		return &fs.PathError{Op: op, Path: f.name, Err: syscall.EISDIR}
	}
	return nil
}

func (f *memFile) Read(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	n, err := f.readAtLocked(p, f.pos)
	f.pos += int64(n)
	return n, err
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return f.readAtLocked(p, off)
}

func (f *memFile) readAtLocked(p []byte, off int64) (int, error) {
	if err := f.check("read", false); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: syscall.EINVAL}
	}
	if off >= int64(len(f.n.data)) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, f.n.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	off := f.pos
	if f.append {
		off = int64(len(f.n.data))
	}
	n, err := f.writeAtLocked(p, off)
	f.pos = off + int64(n)
	return n, err
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	return f.writeAtLocked(p, off)
}

func (f *memFile) writeAtLocked(p []byte, off int64) (int, error) {
	if err := f.check("write", true); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.EINVAL}
	}
	if err := f.fs.beginLocked(OpWrite, f.name); err != nil {
		return 0, err
	}
	end := off + int64(len(p))
	if end > int64(len(f.n.data)) {
		f.n.resize(end)
	}
	copy(f.n.data[off:end], p)
	f.n.dirty(off, end)
	return len(p), nil
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: errClosed}
	}
	return f.n.info(filepath.Base(f.name)), nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return &fs.PathError{Op: "sync", Path: f.name, Err: errClosed}
	}
	if f.n.dir {
		if err := f.fs.beginLocked(OpSyncDir, f.name); err != nil {
			return err
		}
		f.n.syncedKids = maps(f.n.kids)
		return nil
	}
	if err := f.fs.beginLocked(OpSync, f.name); err != nil {
		return err
	}
	f.n.syncFile()
	return nil
}

func (f *memFile) SyncData() error { return f.Sync() }

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("truncate", true); err != nil {
		return err
	}
	if size < 0 {
		return &fs.PathError{Op: "truncate", Path: f.name, Err: syscall.EINVAL}
	}
	if err := f.fs.beginLocked(OpTruncate, f.name); err != nil {
		return err
	}
	f.n.resize(size)
	return nil
}

func (f *memFile) Preallocate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if err := f.check("preallocate", true); err != nil {
		return err
	}
	if size <= int64(len(f.n.data)) {
		return nil
	}
	if err := f.fs.beginLocked(OpPreallocate, f.name); err != nil {
		return err
	}
	f.n.resize(size)
	return nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return &fs.PathError{Op: "close", Path: f.name, Err: errClosed}
	}
	f.closed = true
	return nil
}

var _ FS = (*MemFS)(nil)
