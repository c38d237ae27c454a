package engine

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"

	"github.com/quiverdb/quiver/engine/load"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// DataDir is a data directory this process holds: created if it was
// missing, locked (one process per directory), its contents restricted
// to the owner. Open takes one; a server that keeps more than the
// database in the directory (the audit trail) takes it first with
// LockDataDir, so that nothing touches the directory before the lock is
// held, and opens the database on it with DataDir.Open.
type DataDir struct {
	path    string
	fs      vfs.FS
	created bool
	unlock  func()
	// writer is this process's writer id, recorded in LOCK and carried
	// by its commit records and checkpoints (storage/writer.go).
	writer uint64
}

// LockDataDir creates dir if it is missing (owner-only, 0700, its entry
// synced in its parent), takes its lock, and narrows to the owner the
// modes of what the directory holds. It warns, through opts.Logger, when
// dir itself is open to other users: it then holds password hashes and
// keys that the owner-only modes inside protect only as long as nobody
// else can replace them. The lock is held until DataDir.Release or the
// database Open returns is closed.
func LockDataDir(dir string, opts Options) (*DataDir, error) {
	if dir == "" {
		return nil, errors.New("LockDataDir needs a directory")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = vfs.Default
	}
	created, err := vfs.MkdirAllSync(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("cannot create data directory: %w", err)
	}
	writer := storage.NewWriterID()
	unlock, err := storage.LockDataDir(fsys, dir, writer)
	if err != nil {
		return nil, err
	}
	d := &DataDir{path: dir, fs: fsys, created: created, unlock: unlock, writer: writer}
	if st, err := fsys.Stat(dir); err == nil && st.Mode().Perm()&0o077 != 0 {
		log.Warn("the data directory is accessible to other users: it holds password hashes, token keys and every commit; restrict it to the owner (chmod 700)",
			"dir", dir, "mode", fmt.Sprintf("%04o", st.Mode().Perm()))
	}
	// A file the server cannot narrow (another user's) is reported, not
	// fatal: the server may still be able to serve.
	n, err := restrictModes(fsys, dir)
	if n > 0 {
		log.Warn("restricted files and folders of the data directory to their owner (0600 and 0700); earlier versions created them readable by others",
			"dir", dir, "changed", n)
	}
	if err != nil {
		log.Warn("cannot restrict a file or folder of the data directory to its owner", "dir", dir, "error", err)
	}
	if fsys == vfs.Default {
		// Imports build their directory beside it through the operating
		// system (load/staging.go).
		if err := load.ImportRunning(dir); err != nil {
			d.Release()
			return nil, err
		}
		stale, err := load.CleanStaleImports(dir)
		for _, p := range stale {
			log.Warn("removed a directory left by an interrupted import", "path", p)
		}
		if err != nil {
			d.Release()
			return nil, err
		}
	}
	return d, nil
}

// Path is the directory.
func (d *DataDir) Path() string { return d.path }

// FS is the filesystem it is on.
func (d *DataDir) FS() vfs.FS { return d.fs }

// Created reports whether LockDataDir created the directory: a new (or
// mistyped) --data-dir.
func (d *DataDir) Created() bool { return d.created }

// Release gives up the directory without opening a database on it.
func (d *DataDir) Release() {
	if d.unlock != nil {
		d.unlock()
		d.unlock = nil
	}
}

// restrictModes sets every file under dir to vfs.FileMode and every
// directory to vfs.DirMode, dir itself excepted (its mode is the
// operator's; LockDataDir warns about it), and returns how many it
// changed, and the first error (it goes on past errors). Symbolic links
// are left alone: a chmod would follow them out of the directory.
func restrictModes(fsys vfs.FS, dir string) (n int, first error) {
	ents, err := fsys.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		want := vfs.FileMode
		if e.IsDir() {
			want = vfs.DirMode
			m, err := restrictModes(fsys, path)
			n += m
			first = cmp.Or(first, err)
		} else if !info.Mode().IsRegular() {
			continue
		}
		if info.Mode().Perm() != want {
			if err := fsys.Chmod(path, want); err != nil {
				first = cmp.Or(first, err)
				continue
			}
			n++
		}
	}
	return n, first
}

// walHoldsRecords reports whether the log in dir has a segment with
// bytes in it (a preallocated segment counts: its zeros may follow
// records).
func walHoldsRecords(fsys vfs.FS, dir string) bool {
	ents, err := fsys.ReadDir(filepath.Join(dir, WALDirName))
	if err != nil {
		return false
	}
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Size() > 0 {
			return true
		}
	}
	return false
}
