package storage

import (
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// TestMarkNodePropCodes checks the distinct codes of a batch, and the
// codes with nulls told apart, against the gathered strings on a base
// read back (one dictionary), with nodes without the property, null ids,
// ids past the column, selections, and a chunk a write reopened, whose
// rows come back as misses coded through the dictionary's index; and
// with the bitmap full, the runs skipped.
func TestMarkNodePropCodes(t *testing.T) {
	const n = 3*GroupSize + 100
	s, k := cityNodes(t, n)
	st := saveAndOpen(t, s, t.TempDir())
	tx := st.Begin()
	if err := tx.SetNodeProps(GroupSize+5, []catalog.KeyID{k}, []vector.Value{"c1"}); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, tx)
	snap := st.Snapshot()
	// The chunks' codes, as MarkNodePropCodes reads them: a CodeView
	// (codeview_test.go) would code the written chunk's rows too.
	snap.nodeCol(k).cache.failed.Store(true)
	m := 1500
	ids := vector.New(vector.Node, m)
	for i := range m {
		ids.IDs[i] = uint64(i * 5) // every group, some past the column
	}
	ids.SetNull(7)
	var odd []int32
	for i := 1; i < m; i += 2 {
		odd = append(odd, int32(i))
	}
	strs := vector.New(vector.String, m)
	snap.GatherNodeProp(k, ids, nil, m, strs)
	d, _ := snap.GatherNodePropCodesIn(k, nil, ids, nil, m, make([]int32, m))
	if d == nil {
		t.Fatal("no dictionary")
	}
	for _, sel := range [][]int32{nil, odd} {
		codes := make([]int32, m)
		if got, ok := snap.GatherNodePropCodesIn(k, d, ids, sel, m, codes); !ok || got != d {
			t.Fatalf("GatherNodePropCodesIn: %p %v, want %p", got, ok, d)
		}
		seen := make([]uint64, (len(d.Strs)+64)/64)
		miss, ok := snap.MarkNodePropCodes(k, d, ids, sel, m, seen, false, nil)
		if !ok {
			t.Fatal("MarkNodePropCodes refused a STRING column")
		}
		want := make([]uint64, len(seen))
		var wantMiss []int32
		vector.ForRows(sel, m, func(r int) {
			switch c := codes[r]; {
			case strs.IsNull(r):
				if c != NullCode {
					t.Fatalf("row %d (id %d) without a value: code %d", r, ids.IDs[r], c)
				}
				want[0] |= 1
			case c == -1:
				wantMiss = append(wantMiss, int32(r))
				if x, ok := d.Code(strs.Str[r]); !ok || d.Strs[x] != strs.Str[r] {
					t.Fatalf("row %d: %q has no code in the index", r, strs.Str[r])
				}
			default:
				if d.Strs[c] != strs.Str[r] {
					t.Fatalf("row %d: code %d is %q, value %q", r, c, d.Strs[c], strs.Str[r])
				}
				want[(c+1)>>6] |= 1 << ((c + 1) & 63)
			}
		})
		if len(wantMiss) == 0 {
			t.Fatal("no row of the reopened chunk")
		}
		if !slices.Equal(seen, want) || !slices.Equal(miss, wantMiss) {
			t.Fatalf("sel %v: seen %x miss %v, want %x %v", sel != nil, seen, miss, want, wantMiss)
		}

		// full: every code's bit set but bit 0. The chunks having rows
		// without a value are still read (bit 0 comes as before), and
		// the misses are the same.
		full := make([]uint64, len(seen))
		for c := 1; c <= len(d.Strs); c++ {
			full[c>>6] |= 1 << (c & 63)
		}
		wantFull := slices.Clone(full)
		wantFull[0] |= want[0]
		miss, _ = snap.MarkNodePropCodes(k, d, ids, sel, m, full, true, nil)
		if !slices.Equal(full, wantFull) || !slices.Equal(miss, wantMiss) {
			t.Fatalf("sel %v, full: seen %x miss %v, want %x %v", sel != nil, full, miss, wantFull, wantMiss)
		}
	}
	// Ids of the first group (a chunk coded in d with rows without a
	// value), none null, every other row selected: with bit 0 set and
	// code 0's cleared, they are skipped unread.
	ids0 := vector.New(vector.Node, GroupSize/5)
	var first []int32
	for r := range GroupSize / 5 {
		ids0.IDs[r] = uint64(r * 5)
		if r%2 == 0 {
			first = append(first, int32(r))
		}
	}
	full := make([]uint64, (len(d.Strs)+64)/64)
	for c := 0; c <= len(d.Strs); c++ {
		full[c>>6] |= 1 << (c & 63)
	}
	full[0] &^= 1 << 1
	want := slices.Clone(full)
	if miss, _ := snap.MarkNodePropCodes(k, d, ids0, first, len(ids0.IDs), full, true, nil); !slices.Equal(full, want) || len(miss) != 0 {
		t.Fatalf("full, first group: seen %x miss %v, want %x and none", full, miss, want)
	}
	if miss, _ := snap.MarkNodePropCodes(k, d, ids0, first, len(ids0.IDs), full, false, nil); full[0]&(1<<1) == 0 || len(miss) != 0 {
		t.Fatalf("not full, first group: seen %x miss %v, want code 0 marked", full, miss)
	}
	if _, ok := d.Code("nowhere"); ok {
		t.Fatal("a string outside the dictionary has a code")
	}
	// The old form still answers -1 for a row without a value.
	codes := make([]int32, m)
	snap.GatherNodePropCodes(k, ids, nil, m, codes)
	if codes[7] != -1 || codes[m-1] != -1 {
		t.Fatalf("GatherNodePropCodes: null id %d, past the column %d", codes[7], codes[m-1])
	}
}

// TestStringDictRanks checks the ranks of a dictionary's codes against
// its strings sorted bytewise, and the rank bounds of strings in it and
// outside it, inclusive and not.
func TestStringDictRanks(t *testing.T) {
	d := &StringDict{Strs: []string{"n2", "a", "n10", "", "Z", "n1", "é"}}
	sorted := slices.Clone(d.Strs)
	slices.Sort(sorted)
	rank := d.Ranks()
	for c, s := range d.Strs {
		if sorted[rank[c]] != s {
			t.Fatalf("code %d (%q) has rank %d, where %q sorts", c, s, rank[c], sorted[rank[c]])
		}
	}
	for _, s := range []string{"", "a", "b", "n1", "n10", "n11", "z", "é", "ü", "A"} {
		for _, inclusive := range []bool{false, true} {
			want := 0
			for _, x := range d.Strs {
				if x < s || inclusive && x == s {
					want++
				}
			}
			if got := d.RankBound(s, inclusive); int(got) != want {
				t.Errorf("RankBound(%q, %v) = %d, want %d", s, inclusive, got, want)
			}
		}
	}
}
