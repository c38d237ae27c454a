package cluster

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	bolt "go.etcd.io/bbolt"
)

// TestStableStoreDamage: a stable-state file that does not check is an
// error naming it, not an empty state (a member that forgot its vote
// could vote twice in a term).
func TestStableStoreDamage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "stable")
	s, err := OpenStableStore(vfs.Default, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetUint64([]byte("CurrentTerm"), 7); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	for _, bad := range [][]byte{b[:len(b)-1], append(append([]byte(nil), b[:9]...), b[10:]...), {}} {
		os.WriteFile(path, bad, 0o600)
		if _, err := OpenStableStore(vfs.Default, path); !errors.Is(err, ErrLogCorrupt) || !strings.Contains(err.Error(), path) {
			t.Fatalf("damaged stable state %x: %v", bad, err)
		}
	}
}

// writeBoltLog writes a raft.db as members kept it before the log store
// of our own: bucket "logs" (big-endian index → term, type, appendedAt,
// len+data, len+extensions, big endian) and bucket "stable".
func writeBoltLog(t *testing.T, path string, logs []*raft.Log, stable map[string][]byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		lb, _ := tx.CreateBucket([]byte("logs"))
		sb, _ := tx.CreateBucket([]byte("stable"))
		for _, l := range logs {
			v := binary.BigEndian.AppendUint64(nil, l.Term)
			v = append(v, byte(l.Type))
			v = binary.BigEndian.AppendUint64(v, uint64(l.AppendedAt.UnixNano()))
			v = binary.BigEndian.AppendUint32(v, uint32(len(l.Data)))
			v = append(v, l.Data...)
			v = binary.BigEndian.AppendUint32(v, uint32(len(l.Extensions)))
			v = append(v, l.Extensions...)
			if err := lb.Put(binary.BigEndian.AppendUint64(nil, l.Index), v); err != nil {
				return err
			}
		}
		for k, v := range stable {
			if err := sb.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrateBoltStore: a member's raft directory holding the bbolt
// raft.db opens on the new stores with the same log (the run after a
// gap: what came before is in a snapshot) and the same term and vote;
// raft.db becomes raft.db.migrated, and a second open migrates nothing.
func TestMigrateBoltStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var old []*raft.Log
	old = append(old, testLog(1))
	for i := uint64(5); i <= 2100; i++ { // more than one copy batch
		old = append(old, testLog(i))
	}
	old[10].Extensions = []byte("ext")
	writeBoltLog(t, filepath.Join(dir, legacyDBName), old, map[string][]byte{
		"CurrentTerm":  binary.BigEndian.AppendUint64(nil, 42),
		"LastVoteCand": []byte("n2"),
	})
	// A half-done earlier migration is redone from scratch.
	if err := os.MkdirAll(filepath.Join(dir, logDirName), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, logDirName, segmentName(5)), []byte("partial"), 0o600)
	for range 2 {
		logs, stable, err := openRaftStores(vfs.Default, dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		checkRange(t, logs, 5, 2100)
		var g raft.Log
		if err := logs.GetLog(14, &g); err != nil || string(g.Extensions) != "ext" {
			t.Fatalf("entry 14: %+v %v", g, err)
		}
		if v, err := stable.GetUint64([]byte("CurrentTerm")); err != nil || v != 42 {
			t.Fatalf("term: %d %v", v, err)
		}
		if v, _ := stable.Get([]byte("LastVoteCand")); string(v) != "n2" {
			t.Fatalf("vote: %q", v)
		}
		logs.Close()
		if _, err := os.Stat(filepath.Join(dir, legacyDBName)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("raft.db after the migration: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, legacyDBName+".migrated")); err != nil {
			t.Fatal(err)
		}
	}
}
