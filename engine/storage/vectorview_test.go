package storage

import (
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// TestVectorView: the view of a column of vectors holds every vector of
// its dimension in id order (INTEGER elements widened), lists other
// values as odd, is shared by readers of one version, and a write makes
// a version whose view has the new value while the old one keeps its.
func TestVectorView(t *testing.T) {
	s := New()
	cat := s.Catalog()
	l := cat.EnsureLabel("D")
	k := cat.EnsureKey("e")
	tx := s.Begin()
	vals := []vector.Value{
		[]vector.Value{1.0, 2.0},
		[]vector.Value{int64(3), 4.0},
		"not a vector",
		[]vector.Value{5.0}, // another dimension
		nil,
		[]vector.Value{6.0, "x"}, // a non-number
		[]vector.Value{7.0, 8.0},
	}
	for _, v := range vals {
		var keys []catalog.KeyID
		var vs []vector.Value
		if v != nil {
			keys, vs = []catalog.KeyID{k}, []vector.Value{v}
		}
		if _, err := tx.CreateNode([]catalog.LabelID{l}, keys, vs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	before := s.Snapshot()
	v := before.NodeVectorView(k, 2)
	if v == nil || v.Dim != 2 || !slices.Equal(v.IDs, []uint64{0, 1, 6}) ||
		!slices.Equal(v.Vals, []float64{1, 2, 3, 4, 7, 8}) || !slices.Equal(v.Odd, []uint64{2, 3, 5}) {
		t.Fatalf("view %+v", v)
	}
	if again := s.Begin().NodeVectorView(k, 2); again != v {
		t.Fatal("two readers of one version built two views")
	}
	if one := before.NodeVectorView(k, 1); !slices.Equal(one.IDs, []uint64{3}) || before.NodeVectorView(k, 2) != v {
		t.Fatalf("a view of another dimension: %+v, or it evicted the cached one", one)
	}
	tx = s.Begin()
	if err := tx.SetNodeProps(0, []catalog.KeyID{k}, []vector.Value{[]vector.Value{9.0, 9.0}}); err != nil {
		t.Fatal(err)
	}
	if own := tx.NodeVectorView(k, 2); own.Vals[0] != 9 {
		t.Fatalf("the writing transaction's view: %v", own.Vals)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if after := s.Snapshot().NodeVectorView(k, 2); after.Vals[0] != 9 || v.Vals[0] != 1 {
		t.Fatalf("after the write: new %v, old %v", after.Vals, v.Vals)
	}
	if before.NodeVectorView(cat.EnsureKey("none"), 2) != nil {
		t.Fatal("a view of a key no node has")
	}
}
