package storage

import (
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// checkCodes compares GatherNodePropCodes with GatherNodeProp over every
// id below bound: a coded row must decode to the gathered string, and an
// uncoded row is one the caller reads the slow way, so either is right
// as long as every row with a code has the right one. It returns the
// number of coded rows and of distinct dictionaries seen.
func checkCodes(t *testing.T, r interface {
	GatherNodeProp(catalog.KeyID, *vector.Vector, []int32, int, *vector.Vector)
	GatherNodePropCodes(catalog.KeyID, *vector.Vector, []int32, int, []int32) (*StringDict, bool)
}, k catalog.KeyID, bound int) (coded, dicts int) {
	t.Helper()
	seen := map[*StringDict]bool{}
	for from := 0; from < bound; from += 1000 {
		n := min(1000, bound-from)
		ids := vector.New(vector.Node, n)
		for i := range n {
			ids.IDs[i] = uint64(from + i)
		}
		codes := make([]int32, n)
		d, ok := r.GatherNodePropCodes(k, ids, nil, n, codes)
		if !ok {
			t.Fatalf("column not coded")
		}
		want := vector.New(vector.String, n)
		r.GatherNodeProp(k, ids, nil, n, want)
		for i := range n {
			if codes[i] < 0 {
				continue
			}
			coded++
			seen[d] = true
			if want.IsNull(i) || d.Strs[codes[i]] != want.Str[i] {
				t.Fatalf("id %d: code reads %q, gather %v", from+i, d.Strs[codes[i]], want.Get(i))
			}
		}
	}
	return coded, len(seen)
}

// TestDictCodes checks codes on chunks sealed at commit, after writes to
// sealed chunks (which must not see the old codes), in an open write
// transaction, and on a base read back (one shared dictionary).
func TestDictCodes(t *testing.T) {
	const n = 3*GroupSize + 100
	s, k := cityNodes(t, n)
	// Chunks sealed at commit are coded each with a dictionary of its
	// own; a batch of 1000 ids takes the first chunk's.
	coded, _ := checkCodes(t, s.Snapshot(), k, n)
	if coded < GroupSize*9/10 {
		t.Fatalf("%d coded rows, want at least the first group's values", coded)
	}

	// Writes into sealed chunks (new values and a removal) replace them
	// with open copies; the snapshot before the write keeps its codes.
	old := s.Snapshot()
	tx := s.Begin()
	for _, id := range []uint64{0, 5, GroupSize + 1, 2*GroupSize + 7} {
		if err := tx.SetNodeProps(id, []catalog.KeyID{k}, []vector.Value{fmt.Sprintf("new%d", id)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.SetNodeProps(9, []catalog.KeyID{k}, []vector.Value{nil}); err != nil {
		t.Fatal(err)
	}
	checkCodes(t, tx, k, n) // inside the writer: open copies, uncoded
	mustCommit(t, tx)
	checkCodes(t, s.Snapshot(), k, n)
	checkCodes(t, old, k, n)
	ids := vector.New(vector.Node, 2)
	ids.IDs[0], ids.IDs[1] = 0, 9
	codes := make([]int32, 2)
	d, _ := s.Snapshot().GatherNodePropCodes(k, ids, nil, 2, codes)
	if codes[0] < 0 || d.Strs[codes[0]] != "new0" || codes[1] >= 0 {
		t.Fatalf("after the write: node 0 code %d, node 9 code %d", codes[0], codes[1])
	}

	got := saveAndOpen(t, s, t.TempDir())
	coded, dicts := checkCodes(t, got.Snapshot(), k, n)
	if dicts != 1 || coded < 3*GroupSize*8/10 {
		t.Fatalf("opened base: %d coded rows in %d dictionaries, want the sealed groups in one", coded, dicts)
	}
}

// TestDictCodesMixedColumn checks that a column holding another type
// besides strings is not coded (its gather type is ANY).
func TestDictCodesMixedColumn(t *testing.T) {
	s := New()
	k := s.Catalog().EnsureKey("v")
	tx := s.Begin()
	for i := range GroupSize + 1 {
		v := vector.Value(fmt.Sprint(i % 3))
		if i == 17 {
			v = int64(17)
		}
		if _, err := tx.CreateNode(nil, []catalog.KeyID{k}, []vector.Value{v}); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	ids := vector.New(vector.Node, 1)
	if _, ok := s.Snapshot().GatherNodePropCodes(k, ids, nil, 1, make([]int32, 1)); ok {
		t.Fatalf("a mixed column reported codes")
	}
}

// cityNodes is a store of n P nodes, node i with city "c<i%7>" but every
// tenth (i%10 == 3) without one, committed in one transaction.
func cityNodes(t *testing.T, n int) (s *Store, k catalog.KeyID) {
	s = New()
	l := s.Catalog().EnsureLabel("P")
	k = s.Catalog().EnsureKey("city")
	tx := s.Begin()
	for i := range n {
		var vals []vector.Value
		var keys []catalog.KeyID
		if i%10 != 3 {
			keys, vals = []catalog.KeyID{k}, []vector.Value{fmt.Sprintf("c%d", i%7)}
		}
		if _, err := tx.CreateNode([]catalog.LabelID{l}, keys, vals); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, tx)
	return s, k
}
