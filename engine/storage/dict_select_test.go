package storage

import (
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// TestSelectNodePropCodes checks the one-pass code test against the
// gathered strings on a base read back (one shared dictionary), with
// nodes without the property, over whole batches and selections, and
// that only a batch touching a chunk a write reopened (or the open last
// one) reports itself unclean.
func TestSelectNodePropCodes(t *testing.T) {
	const n = 3*GroupSize + 100
	s, k := cityNodes(t, n)
	got := saveAndOpen(t, s, t.TempDir())
	wanted := func(v string) bool { return v == "c1" || v == "c4" }
	check := func(snap *Snapshot, dirty map[uint64]bool) {
		t.Helper()
		ids := vector.New(vector.Node, 1)
		d, _ := snap.GatherNodePropCodes(k, ids, nil, 1, make([]int32, 1))
		if d == nil {
			t.Fatal("no dictionary")
		}
		pass := make([]uint8, len(d.Strs))
		for c, v := range d.Strs {
			if wanted(v) {
				pass[c] = 1
			}
		}
		clean := 0
		for from := 0; from < n; from += 1000 {
			m := min(1000, n-from)
			ids := vector.New(vector.Node, m)
			touched := false
			for i := range m {
				ids.IDs[i] = uint64(from + i)
				// (the last group, partly filled, may stay open)
				touched = touched || dirty[uint64(from+i)>>groupShift] || from+i >= 3*GroupSize
			}
			strs := vector.New(vector.String, m)
			snap.GatherNodeProp(k, ids, nil, m, strs)
			var odd []int32
			for i := 1; i < m; i += 2 {
				odd = append(odd, int32(i))
			}
			for _, sel := range [][]int32{nil, odd} {
				var want []int32
				vector.ForRows(sel, m, func(r int) {
					if !strs.IsNull(r) && wanted(strs.Str[r]) {
						want = append(want, int32(r))
					}
				})
				out, ok := snap.SelectNodePropCodes(k, d, pass, ids, sel, m, make([]int32, 0, m))
				if !ok {
					if !touched {
						t.Fatalf("batch at %d unclean", from)
					}
					continue
				}
				clean++
				if !slices.Equal(out, want) {
					t.Fatalf("batch at %d: rows %v, want %v", from, out, want)
				}
				// Every code passing: exactly the rows with a value (a
				// row without one holds some code, and must not pass).
				all := make([]uint8, len(d.Strs))
				for c := range all {
					all[c] = 1
				}
				want = want[:0]
				vector.ForRows(sel, m, func(r int) {
					if !strs.IsNull(r) {
						want = append(want, int32(r))
					}
				})
				if out, ok := snap.SelectNodePropCodes(k, d, all, ids, sel, m, make([]int32, 0, m)); !ok || !slices.Equal(out, want) {
					t.Fatalf("batch at %d, every code passing: rows %v (clean %v), want %v", from, out, ok, want)
				}
			}
		}
		if clean == 0 {
			t.Fatal("no clean batch")
		}
	}
	check(got.Snapshot(), nil)
	// Ids past every group have no value: nothing is selected, cleanly.
	far := vector.New(vector.Node, 3)
	far.IDs[0], far.IDs[1], far.IDs[2] = 8*GroupSize, 8*GroupSize+1, 20*GroupSize
	snap := got.Snapshot()
	d, _ := snap.GatherNodePropCodes(k, vector.New(vector.Node, 1), nil, 1, make([]int32, 1))
	if out, ok := snap.SelectNodePropCodes(k, d, make([]uint8, len(d.Strs)), far, nil, 3, make([]int32, 0, 3)); !ok || len(out) != 0 {
		t.Fatalf("ids past the column: rows %v, clean %v", out, ok)
	}
	tx := got.Begin()
	if err := tx.SetNodeProps(GroupSize+5, []catalog.KeyID{k}, []vector.Value{"c1"}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	check(got.Snapshot(), map[uint64]bool{1: true})
}
