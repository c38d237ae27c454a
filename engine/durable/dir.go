package durable

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

// Dir is a data directory this process holds: created if it was
// missing, locked (one process per directory), its contents restricted
// to the owner. The engine opens a database on one (engine.DataDir).
type Dir struct {
	path    string
	fs      vfs.FS
	created bool
	unlock  func()
	// writer is this process's writer id, recorded in LOCK and carried
	// by its commit records and checkpoints (storage/writer.go).
	writer uint64
}

// Lock creates dir if it is missing (owner-only, 0700, its entry synced
// in its parent), takes its lock, and narrows to the owner the modes of
// what the directory holds, on fsys (nil: vfs.Default). It warns, through
// log (nil: slog.Default()), when
// dir itself is open to other users: it then holds password hashes and
// keys that the owner-only modes inside protect only as long as nobody
// else can replace them. The lock is held until Release.
func Lock(dir string, fsys vfs.FS, log *slog.Logger) (*Dir, error) {
	if dir == "" {
		return nil, errors.New("LockDataDir needs a directory")
	}
	if log == nil {
		log = slog.Default()
	}
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
	d := &Dir{path: dir, fs: fsys, created: created, unlock: unlock, writer: writer}
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
func (d *Dir) Path() string { return d.path }

// FS is the filesystem it is on.
func (d *Dir) FS() vfs.FS { return d.fs }

// SetFS replaces the filesystem the directory's files are read and
// written through, once it is locked: an encrypting one over it
// (engine/encryption.go).
func (d *Dir) SetFS(fsys vfs.FS) { d.fs = fsys }

// Created reports whether Lock created the directory: a new (or
// mistyped) --data-dir.
func (d *Dir) Created() bool { return d.created }

// Writer is this process's writer id in the directory.
func (d *Dir) Writer() uint64 { return d.writer }

// Released reports whether Release ran.
func (d *Dir) Released() bool { return d.unlock == nil }

// Release gives up the directory.
func (d *Dir) Release() {
	if d.unlock != nil {
		d.unlock()
		d.unlock = nil
	}
}

// restrictModes sets every file under dir to vfs.FileMode and every
// directory to vfs.DirMode, dir itself excepted (its mode is the
// operator's; Lock warns about it), and returns how many it
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

// WALHoldsRecords reports whether the log in dir has a segment with
// bytes in it (a preallocated segment counts: its zeros may follow
// records).
func WALHoldsRecords(fsys vfs.FS, dir string) bool {
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
