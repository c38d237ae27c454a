package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/raft"
	bolt "go.etcd.io/bbolt"
)

// Raft's durable state: one bbolt file, <data-dir>/raft/raft.db.
//
//	bucket "logs"   key: index (8 bytes, big-endian, so keys sort by index)
//	                value: term(8) type(1) appendedAt(8, unix ns)
//	                       len(data)(4) data len(ext)(4) ext
//	bucket "stable" key: raft's own keys (CurrentTerm, LastVoteTerm, …)
//	                value: its bytes (SetUint64: 8 bytes big-endian)
//
// raft-boltdb/v2, the library's own store, does not build against raft
// v1.8.0 (it needs an older go-metrics), so this is ours: the same
// layout idea, in a short file. bbolt commits fsync (NoSync stays
// false): StoreLogs returns once the entries are on disk, which is what
// raft's safety needs of a LogStore before it acknowledges an append.
// The free list is not synced (NoFreelistSync, as etcd runs bbolt): one
// write less per commit, and bbolt rebuilds it from the pages at open.

var (
	bucketLogs   = []byte("logs")
	bucketStable = []byte("stable")
)

// errLogNotFound is raft's "no such entry" (raft.ErrLogNotFound), wrapped.
var errLogNotFound = raft.ErrLogNotFound

// BoltStore is raft's LogStore and StableStore on one bbolt file.
type BoltStore struct {
	db *bolt.DB
}

// OpenBoltStore opens (creating it if missing) the store in path.
func OpenBoltStore(path string) (*BoltStore, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoSync: false, NoFreelistSync: true})
	if err != nil {
		return nil, fmt.Errorf("cluster: cannot open the raft log %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bucketLogs); err != nil {
			return err
		}
		_, err := tx.CreateBucketIfNotExists(bucketStable)
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("cluster: cannot initialise the raft log %s: %w", path, err)
	}
	return &BoltStore{db: db}, nil
}

// Close closes the file.
func (b *BoltStore) Close() error { return b.db.Close() }

func indexKey(i uint64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], i)
	return k[:]
}

// FirstIndex returns the first index stored, 0 for none.
func (b *BoltStore) FirstIndex() (uint64, error) {
	var i uint64
	err := b.db.View(func(tx *bolt.Tx) error {
		if k, _ := tx.Bucket(bucketLogs).Cursor().First(); k != nil {
			i = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	return i, err
}

// LastIndex returns the last index stored, 0 for none.
func (b *BoltStore) LastIndex() (uint64, error) {
	var i uint64
	err := b.db.View(func(tx *bolt.Tx) error {
		if k, _ := tx.Bucket(bucketLogs).Cursor().Last(); k != nil {
			i = binary.BigEndian.Uint64(k)
		}
		return nil
	})
	return i, err
}

// GetLog reads the entry at index into l.
func (b *BoltStore) GetLog(index uint64, l *raft.Log) error {
	return b.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketLogs).Get(indexKey(index))
		if v == nil {
			return errLogNotFound
		}
		if err := decodeLog(v, l); err != nil {
			return fmt.Errorf("cluster: raft log entry %d: %w", index, err)
		}
		l.Index = index
		return nil
	})
}

// StoreLog stores one entry.
func (b *BoltStore) StoreLog(l *raft.Log) error { return b.StoreLogs([]*raft.Log{l}) }

// StoreLogs stores entries in one fsynced transaction.
func (b *BoltStore) StoreLogs(logs []*raft.Log) error {
	return b.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketLogs)
		for _, l := range logs {
			if err := bk.Put(indexKey(l.Index), encodeLog(l)); err != nil {
				return err
			}
		}
		return nil
	})
}

// DeleteRange deletes the entries min..max, both included.
func (b *BoltStore) DeleteRange(lo, hi uint64) error {
	return b.db.Update(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketLogs).Cursor()
		for k, _ := c.Seek(indexKey(lo)); k != nil && binary.BigEndian.Uint64(k) <= hi; k, _ = c.Next() {
			if err := c.Delete(); err != nil {
				return err
			}
		}
		return nil
	})
}

// Set stores a stable key.
func (b *BoltStore) Set(key, val []byte) error {
	return b.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketStable).Put(key, val)
	})
}

// Get returns a stable key's value, empty when missing.
func (b *BoltStore) Get(key []byte) ([]byte, error) {
	var out []byte
	err := b.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketStable).Get(key); v != nil {
			out = append([]byte(nil), v...)
		}
		return nil
	})
	return out, err
}

// SetUint64 stores a stable key holding a number.
func (b *BoltStore) SetUint64(key []byte, val uint64) error { return b.Set(key, indexKey(val)) }

// GetUint64 returns a stable key's number, 0 when missing.
func (b *BoltStore) GetUint64(key []byte) (uint64, error) {
	v, err := b.Get(key)
	if err != nil || len(v) == 0 {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("cluster: raft stable key %q holds %d bytes, not a number", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

func encodeLog(l *raft.Log) []byte {
	out := make([]byte, 0, 8+1+8+4+len(l.Data)+4+len(l.Extensions))
	out = binary.BigEndian.AppendUint64(out, l.Term)
	out = append(out, byte(l.Type))
	var at int64
	if !l.AppendedAt.IsZero() {
		at = l.AppendedAt.UnixNano()
	}
	out = binary.BigEndian.AppendUint64(out, uint64(at))
	out = binary.BigEndian.AppendUint32(out, uint32(len(l.Data)))
	out = append(out, l.Data...)
	out = binary.BigEndian.AppendUint32(out, uint32(len(l.Extensions)))
	return append(out, l.Extensions...)
}

var errShortEntry = errors.New("truncated entry")

// decodeLog fills l from v, copying the bytes out of bbolt's page (v is
// valid only inside its transaction).
func decodeLog(v []byte, l *raft.Log) error {
	if len(v) < 8+1+8+4 {
		return errShortEntry
	}
	l.Term = binary.BigEndian.Uint64(v)
	l.Type = raft.LogType(v[8])
	if at := int64(binary.BigEndian.Uint64(v[9:])); at != 0 {
		l.AppendedAt = time.Unix(0, at)
	} else {
		l.AppendedAt = time.Time{}
	}
	v = v[17:]
	n := int(binary.BigEndian.Uint32(v))
	v = v[4:]
	if len(v) < n+4 {
		return errShortEntry
	}
	l.Data = append([]byte(nil), v[:n]...)
	v = v[n:]
	m := int(binary.BigEndian.Uint32(v))
	v = v[4:]
	if len(v) != m {
		return errShortEntry
	}
	l.Extensions = nil
	if m > 0 {
		l.Extensions = append([]byte(nil), v...)
	}
	return nil
}

var (
	_ raft.LogStore    = (*BoltStore)(nil)
	_ raft.StableStore = (*BoltStore)(nil)
)
