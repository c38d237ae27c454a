package storage

import (
	"io/fs"
	"path/filepath"

	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// WALDirName is the write-ahead log's directory inside a data directory.
const WALDirName = "wal"

// EmptyDatabaseDir reports whether the entries of a data directory are
// only what a server leaves in one where nothing was ever committed: its
// lock file, and a log directory whose segments hold no records.
func EmptyDatabaseDir(dir string, ents []fs.DirEntry) bool {
	return EmptyDatabaseDirFS(vfs.Default, dir, ents)
}

// EmptyDatabaseDirFS is EmptyDatabaseDir on fsys.
func EmptyDatabaseDirFS(fsys vfs.FS, dir string, ents []fs.DirEntry) bool {
	for _, e := range ents {
		switch {
		case e.Name() == DataDirLockName && !e.IsDir():
		case e.Name() == WALDirName && e.IsDir():
			segs, err := fsys.ReadDir(filepath.Join(dir, WALDirName))
			if err != nil {
				return false
			}
			for _, s := range segs {
				fi, err := s.Info()
				if err != nil || s.IsDir() || fi.Size() != 0 {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// Checkpoint writes the latest durable version to dir as a new base (the
// manifest switch makes it the one Open loads) and returns the log
// position it holds everything up to (the write-ahead log before it is no
// longer needed), the bytes written and the new manifest's stamp. The
// manifest in dir must still be the one expect stamps, or nothing is
// switched and the error is an *OtherWriterError (writer.go). Readers and
// writers are not blocked: the version is immutable, and commits go on
// while it is written. prog, when set, is told the writing's phases
// (progress.go).
func (s *Store) Checkpoint(fsys vfs.FS, dir string, expect ManifestStamp, prog *progress.Tracker) (lsn uint64, bytes int64, stamp ManifestStamp, err error) {
	v := s.cur.Load()
	n, stamp, err := v.writeBase(fsys, s.cat, dir, nil, &expect, prog)
	if err != nil {
		return 0, 0, ManifestStamp{}, err
	}
	return v.lsn, n, stamp, nil
}
