package storage

import (
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// NodesHolding finds exactly the nodes with a value of the key, over
// several groups (one without the key at all), values of another type
// than the chunk's (the side map), a value removed, and a transaction's
// own writes, which other readers do not see.
func TestNodesHolding(t *testing.T) {
	s := New()
	cat := s.Catalog()
	id, other := cat.EnsureKey("id"), cat.EnsureKey("other")
	tx := s.Begin()
	var want []uint32
	for i := range 3 * GroupSize {
		var v vector.Value
		switch {
		case i >= GroupSize && i < 2*GroupSize: // a group without id
		case i%7 == 0:
			v = "s" // not the chunk's dominant type
		case i%3 == 0:
			v = int64(i)
		}
		if v == nil {
			mustNode(t, tx, nil, []catalog.KeyID{other}, int64(i))
			continue
		}
		n := mustNode(t, tx, nil, []catalog.KeyID{id}, v)
		want = append(want, uint32(n))
	}
	mustCommit(t, tx)
	snap := s.Snapshot()
	all := snap.LiveNodes()
	if got := snap.NodesHolding(id, all).ToArray(); !slices.Equal(got, want) {
		t.Fatalf("NodesHolding = %d nodes, want %d", len(got), len(want))
	}
	// within limits the answer.
	within := roaring.BitmapOf(0, 3, 5, 2*GroupSize+2, 2*GroupSize+3, 3*GroupSize+5)
	if got := snap.NodesHolding(id, within).ToArray(); !slices.Equal(got, []uint32{0, 3, 2*GroupSize + 2}) {
		t.Fatalf("NodesHolding(within) = %v", got)
	}
	if got := snap.NodesHolding(cat.EnsureKey("nobody"), all); !got.IsEmpty() {
		t.Fatalf("a key no node holds: %v", got.ToArray())
	}

	// A transaction sees its removal and its new node; the snapshot not.
	tx = s.Begin()
	if err := tx.SetNodeProps(3, []catalog.KeyID{id}, []vector.Value{nil}); err != nil {
		t.Fatal(err)
	}
	n := mustNode(t, tx, nil, []catalog.KeyID{id}, int64(1))
	got := tx.NodesHolding(id, tx.LiveNodes())
	if got.Contains(3) || !got.Contains(uint32(n)) || got.GetCardinality() != uint64(len(want)) {
		t.Fatalf("tx NodesHolding: has 3 %v, has new %v, %d nodes", got.Contains(3), got.Contains(uint32(n)), got.GetCardinality())
	}
	if !snap.NodesHolding(id, all).Contains(3) {
		t.Fatal("the snapshot sees the transaction's removal")
	}
	tx.Rollback()
}
