package storage

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// A column read back from a base, coded in one dictionary, is gathered
// through its CodeView once it has served an eighth of its ids: the codes
// of random ids (nulls, ids without a value, ids past the column, a
// selection) are those the chunks give, and a write drops the view, so
// that neither the writer's snapshot nor an older one reads a stale code.
func TestCodeViewGathersAsTheChunks(t *testing.T) {
	const n = 3*GroupSize + 100
	s, k := cityNodes(t, n)
	s = saveAndOpen(t, s, t.TempDir())
	snap := s.Snapshot()
	col := snap.nodeCol(k)
	if col.cache.cview.Load() != nil {
		t.Fatal("a view before any demand")
	}
	rng := rand.New(rand.NewSource(1))
	gatherBoth := func(snap *Snapshot, col *column) {
		t.Helper()
		const rows = 700
		ids := vector.New(vector.Node, rows)
		ids.Valid = vector.NewValidity(rows)
		for i := range rows {
			ids.IDs[i] = uint64(rng.Intn(n + 3000)) // some past the column
			if i%50 == 7 {
				ids.Valid.SetInvalid(i)
			}
		}
		var sel []int32
		if rng.Intn(2) == 0 {
			for i := 0; i < rows; i += 1 + rng.Intn(3) {
				sel = append(sel, int32(i))
			}
		}
		got, want := make([]int32, rows), make([]int32, rows)
		d := gatherCodes(col, nil, ids, sel, rows, got, NullCode)
		// The chunks' own path: the same gather on a column without the view.
		bare := &column{groups: col.groups, counts: col.counts}
		bare.cache.failed.Store(true)
		wd := gatherCodes(bare, d, ids, sel, rows, want, NullCode)
		if d != wd {
			t.Fatalf("dictionaries %p and %p", d, wd)
		}
		strs := vector.New(vector.String, rows)
		snap.GatherNodeProp(k, ids, sel, rows, strs)
		for i := range count(sel, rows) {
			r := row(sel, i)
			// An open chunk (the partial last one) has codes in the
			// view only.
			if got[r] != want[r] && want[r] != -1 {
				t.Fatalf("row %d (id %d): code %d, the chunks give %d", r, ids.IDs[r], got[r], want[r])
			}
			switch {
			case strs.IsNull(int(r)):
				if got[r] != NullCode {
					t.Fatalf("row %d (id %d) has no value, code %d", r, ids.IDs[r], got[r])
				}
			case got[r] == -1: // a value without a code (no view then)
			case got[r] < 0 || d.Strs[got[r]] != strs.Str[r]:
				t.Fatalf("row %d (id %d): code %d, value %q", r, ids.IDs[r], got[r], strs.Str[r])
			}
		}
	}
	for range 8 {
		gatherBoth(snap, col)
	}
	v := col.cache.cview.Load()
	// The last node (6243, i % 10 == 3) has no city.
	if v == nil || v.u8 == nil || v.lo != 0 || v.n != n-1 {
		t.Fatalf("view after the demand of half the ids: %v; want one byte per id over 0..%d", v != nil, n-2)
	}

	tx := s.Begin()
	if err := tx.SetNodeProps(5, []catalog.KeyID{k}, []vector.Value{"new"}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	after := s.Snapshot()
	for range 8 {
		gatherBoth(after, after.nodeCol(k))
		gatherBoth(snap, col)
	}
	ids := vector.New(vector.Node, 1)
	ids.IDs[0] = 5
	codes := make([]int32, 1)
	if d, _ := after.GatherNodePropCodes(k, ids, nil, 1, codes); codes[0] >= 0 && d.Strs[codes[0]] != "new" {
		t.Fatalf("after the write, node 5 reads %q", d.Strs[codes[0]])
	}
	if d, _ := snap.GatherNodePropCodes(k, ids, nil, 1, codes); codes[0] < 0 || d.Strs[codes[0]] != fmt.Sprintf("c%d", 5%7) {
		t.Fatalf("the snapshot before the write reads code %d for node 5", codes[0])
	}
}
