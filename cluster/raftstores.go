package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	bolt "go.etcd.io/bbolt"
)

// Raft's durable state in <data-dir>/raft:
//
//	log/      the log (LogStore, logstore.go)
//	stable    term and vote (StableStore, stablestore.go)
//	raft.db   the bbolt file members kept both in before; migrated once
//	          at open, then renamed raft.db.migrated
const (
	stableName   = "stable"
	legacyDBName = "raft.db"
)

// openRaftStores opens raft's log and stable state in dir (the member's
// raft directory) on fsys (the data directory's: encrypted at rest with
// it), migrating a bbolt raft.db first when there is one.
func openRaftStores(fsys vfs.FS, dir string, segSize int64) (*LogStore, *StableStore, error) {
	legacy := filepath.Join(dir, legacyDBName)
	if _, err := os.Stat(legacy); err == nil {
		if err := migrateBolt(fsys, legacy, dir, segSize); err != nil {
			return nil, nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("cluster: cannot stat %s: %w", legacy, err)
	}
	logs, err := OpenLogStore(fsys, filepath.Join(dir, logDirName), segSize)
	if err != nil {
		return nil, nil, err
	}
	stable, err := OpenStableStore(fsys, filepath.Join(dir, stableName))
	if err != nil {
		logs.Close()
		return nil, nil, err
	}
	return logs, stable, nil
}

// migrateBolt copies the bbolt file's log and stable keys into a new log
// and stable state in dir, syncs them, and renames the file
// raft.db.migrated. A crash before the rename leaves raft.db in place,
// and the next open migrates again from scratch (what it wrote before is
// removed first): the new store counts only once raft.db is gone.
func migrateBolt(fsys vfs.FS, legacy, dir string, segSize int64) error {
	logDir, stablePath := filepath.Join(dir, logDirName), filepath.Join(dir, stableName)
	for _, p := range []string{logDir, stablePath, stablePath + ".tmp"} {
		if err := os.RemoveAll(p); err != nil {
			return fmt.Errorf("cluster: cannot remove %s before migrating %s: %w", p, legacy, err)
		}
	}
	db, err := bolt.Open(legacy, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("cluster: cannot open %s to migrate it: %w", legacy, err)
	}
	defer db.Close()
	logs, err := OpenLogStore(fsys, logDir, segSize)
	if err != nil {
		return err
	}
	defer logs.Close()
	stable, err := OpenStableStore(fsys, stablePath)
	if err != nil {
		return err
	}
	err = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte("stable")); b != nil {
			if err := b.ForEach(func(k, v []byte) error { return stable.Set(k, v) }); err != nil {
				return err
			}
		}
		b := tx.Bucket([]byte("logs"))
		if b == nil {
			return nil
		}
		return copyBoltLogs(b.Cursor(), logs)
	})
	if err != nil {
		return fmt.Errorf("cluster: cannot migrate %s: %w", legacy, err)
	}
	if err := vfs.SyncDir(vfs.Default, dir); err != nil {
		return fmt.Errorf("cluster: cannot sync %s: %w", dir, err)
	}
	if err := os.Rename(legacy, legacy+".migrated"); err != nil {
		return fmt.Errorf("cluster: cannot rename %s after migrating it: %w", legacy, err)
	}
	return vfs.SyncDir(vfs.Default, dir)
}

// copyBoltLogs copies the last run of consecutive entries (an older
// store could hold a gap after an installed snapshot; the snapshot covers
// what lies before it) in batches, each synced.
func copyBoltLogs(c *bolt.Cursor, logs *LogStore) error {
	k, _ := c.Last()
	if k == nil {
		return nil
	}
	start := binary.BigEndian.Uint64(k)
	for k, _ = c.Prev(); k != nil && binary.BigEndian.Uint64(k) == start-1; k, _ = c.Prev() {
		start--
	}
	var batch []*raft.Log
	for k, v := c.Seek(binary.BigEndian.AppendUint64(nil, start)); ; k, v = c.Next() {
		if k == nil || len(batch) == 1024 {
			if err := logs.StoreLogs(batch); err != nil {
				return err
			}
			batch = batch[:0]
		}
		if k == nil {
			return nil
		}
		l := &raft.Log{Index: binary.BigEndian.Uint64(k)}
		if err := decodeBoltLog(v, l); err != nil {
			return fmt.Errorf("entry %d: %w", l.Index, err)
		}
		batch = append(batch, l)
	}
}

// decodeBoltLog decodes the bbolt store's value (copied out: v is valid
// only in its transaction):
//
//	term(8) type(1) appendedAt(8, unix ns) len(data)(4) data len(ext)(4) ext
//
// big endian.
func decodeBoltLog(v []byte, l *raft.Log) error {
	short := errors.New("truncated entry")
	if len(v) < 8+1+8+4 {
		return short
	}
	l.Term = binary.BigEndian.Uint64(v)
	l.Type = raft.LogType(v[8])
	if at := int64(binary.BigEndian.Uint64(v[9:])); at != 0 {
		l.AppendedAt = time.Unix(0, at)
	}
	v = v[17:]
	n := uint64(binary.BigEndian.Uint32(v))
	v = v[4:]
	if uint64(len(v)) < n+4 {
		return short
	}
	if n > 0 {
		l.Data = append([]byte(nil), v[:n]...)
	}
	v = v[n:]
	m := uint64(binary.BigEndian.Uint32(v))
	v = v[4:]
	if uint64(len(v)) != m {
		return short
	}
	if m > 0 {
		l.Extensions = append([]byte(nil), v...)
	}
	return nil
}
