package storage

import (
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// TestUpdateIsolation: a snapshot taken before a commit of updates and
// deletions answers as before; the Tx reads its own writes; the new
// version has them.
func TestUpdateIsolation(t *testing.T) {
	s := New()
	cat := s.Catalog()
	a, b := cat.EnsureLabel("A"), cat.EnsureLabel("B")
	k := cat.EnsureKey("k")
	ty := cat.EnsureType("T")
	tx := s.Begin()
	n1, _ := tx.CreateNode([]catalog.LabelID{a}, []catalog.KeyID{k}, []vector.Value{int64(1)})
	n2, _ := tx.CreateNode(nil, nil, nil)
	r, _ := tx.CreateRel(ty, n1, n2, []catalog.KeyID{k}, []vector.Value{"x"})
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	before := s.Snapshot()

	tx = s.Begin()
	if err := tx.SetNodeProps(n1, []catalog.KeyID{k}, []vector.Value{int64(2)}); err != nil {
		t.Fatal(err)
	}
	if got, err := tx.AddLabels(n1, []catalog.LabelID{b, a}); err != nil || got != 1 {
		t.Fatalf("AddLabels = %d, %v; want 1 (A is there already)", got, err)
	}
	if got, err := tx.RemoveLabels(n1, []catalog.LabelID{a}); err != nil || got != 1 {
		t.Fatalf("RemoveLabels = %d, %v", got, err)
	}
	_, _, err := tx.DeleteNode(n2, false)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeConstraint {
		t.Fatalf("DeleteNode of a node with a relationship: %v, want a 23000 error", err)
	}
	ok, nrels, err := tx.DeleteNode(n2, true)
	if !ok || nrels != 1 || err != nil {
		t.Fatalf("DETACH DELETE: %v %d %v", ok, nrels, err)
	}
	if ok, _, _ := tx.DeleteNode(n2, true); ok {
		t.Fatal("a node was deleted twice")
	}
	// Read own writes.
	if tx.NodeCount() != 1 || tx.RelCount() != 0 || tx.HasLabel(n1, a) || !tx.HasLabel(n1, b) {
		t.Fatalf("tx view: %d nodes, %d rels", tx.NodeCount(), tx.RelCount())
	}
	if _, _, _, ok := tx.Rel(r); ok {
		t.Fatal("deleted relationship still visible in its tx")
	}
	if a := tx.Adjacency(ty, Outgoing); a != nil {
		t.Fatalf("adjacency of a type without relationships: %d edges", a.NumEdges())
	}
	props := map[catalog.KeyID]vector.Value{}
	tx.NodeProps(n1, func(k catalog.KeyID, v vector.Value) { props[k] = v })
	if props[k] != int64(2) {
		t.Fatalf("tx sees k = %v", props[k])
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	// The old snapshot is unchanged.
	if before.NodeCount() != 2 || before.RelCount() != 1 || !before.HasLabel(n1, a) || before.HasLabel(n1, b) {
		t.Fatal("snapshot taken before the commit sees it")
	}
	if _, _, _, ok := before.Rel(r); !ok || before.Adjacency(ty, Outgoing).Degree(n1) != 1 {
		t.Fatal("old snapshot lost the relationship")
	}
	before.NodeProps(n1, func(_ catalog.KeyID, v vector.Value) {
		if v != int64(1) {
			t.Fatalf("old snapshot sees k = %v", v)
		}
	})
	if err := before.Check(); err != nil {
		t.Fatal(err)
	}
	// Writes to entities that no longer exist are errors.
	tx = s.Begin()
	defer tx.Rollback()
	if err := tx.SetNodeProps(n2, []catalog.KeyID{k}, []vector.Value{int64(1)}); err == nil {
		t.Fatal("set on a deleted node succeeded")
	}
	if err := tx.SetRelProps(r, []catalog.KeyID{k}, []vector.Value{int64(1)}); err == nil {
		t.Fatal("set on a deleted relationship succeeded")
	}
}

// TestBackgroundCompaction: a commit that leaves a large overlay (inserts
// and deletes) is folded into the base by the background compactor; the
// content is unchanged and a snapshot taken before still answers.
func TestBackgroundCompaction(t *testing.T) {
	defer func(old int) { compactMin = old }(compactMin)
	compactMin = 8
	s := New()
	ty := s.Catalog().EnsureType("T")
	tx := s.Begin()
	var ids []uint64
	for i := 0; i < 20; i++ {
		id, _ := tx.CreateNode(nil, nil, nil)
		ids = append(ids, id)
	}
	var rels []uint64
	for i := 0; i < 40; i++ {
		r, err := tx.CreateRel(ty, ids[i%20], ids[(i*7)%20], nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, r)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s.WaitCompaction()
	a := s.Snapshot().Adjacency(ty, Outgoing)
	if a.OverlaySize() != 0 || a.Base().NumEdges() != 40 {
		t.Fatalf("after background compaction: overlay %d, base %d edges", a.OverlaySize(), a.Base().NumEdges())
	}
	before := s.Snapshot()
	tx = s.Begin()
	for _, r := range rels[:30] {
		if _, err := tx.DeleteRel(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s.WaitCompaction()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	a = s.Snapshot().Adjacency(ty, Outgoing)
	if a.OverlaySize() != 0 || a.NumEdges() != 10 || a.Base().NumEdges() != 10 {
		t.Fatalf("deletions not folded: overlay %d, %d edges, base %d", a.OverlaySize(), a.NumEdges(), a.Base().NumEdges())
	}
	if b := before.Adjacency(ty, Outgoing); b.NumEdges() != 40 || before.RelCount() != 40 {
		t.Fatalf("snapshot before the deletions sees %d edges", b.NumEdges())
	}
	if err := before.Check(); err != nil {
		t.Fatal(err)
	}
}
