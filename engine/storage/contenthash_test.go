package storage

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// contentHashStore is a store of n nodes in a ring of KNOWS.
func contentHashStore(t *testing.T, n int) *Store {
	t.Helper()
	s := New()
	cat := s.Catalog()
	l, k, typ := cat.EnsureLabel("N"), cat.EnsureKey("i"), cat.EnsureType("KNOWS")
	tx := s.Begin()
	for i := range n {
		if _, err := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k}, []vector.Value{int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if _, err := tx.CreateRel(typ, uint64(i), uint64((i+1)%n), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return s
}

// Compaction changes the layout, never the hash; a stop ends the scan.
func TestContentHashCompactionAndStop(t *testing.T) {
	s := contentHashStore(t, 3*GroupSize)
	before, err := s.Snapshot().ContentHash(s.Catalog(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Compact()
	s.WaitCompaction()
	after, err := s.Snapshot().ContentHash(s.Catalog(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if before != after || after.Nodes != 3*GroupSize || after.Rels != 3*GroupSize {
		t.Fatalf("compaction changed the hash: %x/%d/%d, then %x/%d/%d", before.Content, before.Nodes, before.Rels, after.Content, after.Nodes, after.Rels)
	}
	stopped := errors.New("stopped")
	var calls atomic.Int64
	_, err = s.Snapshot().ContentHash(s.Catalog(), func() error {
		if calls.Add(1) >= 2 {
			return stopped
		}
		return nil
	})
	if !errors.Is(err, stopped) || calls.Load() < 2 {
		t.Fatalf("stop: %v after %d calls", err, calls.Load())
	}
}
