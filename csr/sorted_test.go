package csr

import (
	"bytes"
	"cmp"
	"math/rand"
	"slices"
	"testing"
)

// TestBuildSorted: lists sorted by the caller give the CSR Build gives
// for the same edges, and EncodeTo writes exactly AppendEncode's bytes.
func TestBuildSorted(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 5, 300, 20000} {
		var edges []Edge
		for i := 0; i < n*4 && n > 0; i++ {
			e := Edge{Src: uint64(rnd.Intn(n)), Dst: uint64(rnd.Intn(n)), Rel: uint64(i)}
			if i%7 == 0 && i > 0 { // parallel edges
				e.Src, e.Dst = edges[i-1].Src, edges[i-1].Dst
			}
			edges = append(edges, e)
		}
		want := Build(n, edges)
		sorted := slices.Clone(edges)
		slices.SortFunc(sorted, func(a, b Edge) int {
			return cmp.Or(cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst), cmp.Compare(a.Rel, b.Rel))
		})
		offsets := make([]uint64, n+1)
		dsts := make([]uint32, len(sorted))
		rels := make([]uint64, len(sorted))
		for i, e := range sorted {
			offsets[e.Src+1]++
			dsts[i], rels[i] = uint32(e.Dst), e.Rel
		}
		for v := 1; v <= n; v++ {
			offsets[v] += offsets[v-1]
		}
		got := BuildSorted(n, offsets, dsts, rels)
		if err := got.Check(); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		wantEnc := want.AppendEncode(nil)
		if !bytes.Equal(got.AppendEncode(nil), wantEnc) {
			t.Fatalf("n=%d: BuildSorted differs from Build", n)
		}
		var buf bytes.Buffer
		if err := got.EncodeTo(&buf, nil); err != nil || !bytes.Equal(buf.Bytes(), wantEnc) {
			t.Fatalf("n=%d: EncodeTo differs from AppendEncode (%v)", n, err)
		}
		// Sequential and wide ids, and ids given as 32-bit values.
		for _, c := range []*CSR{got.WithSequentialRels(1 << 40), got.WithRels(addEach(rels, 1<<33))} {
			buf.Reset()
			if err := c.EncodeTo(&buf, nil); err != nil || !bytes.Equal(buf.Bytes(), c.AppendEncode(nil)) {
				t.Fatalf("n=%d: EncodeTo differs from AppendEncode (%v)", n, err)
			}
		}
		small := make([]uint32, len(rels))
		for i := range small {
			small[i] = uint32(i * 3)
		}
		buf.Reset()
		if err := got.EncodeTo(&buf, small); err != nil || !bytes.Equal(buf.Bytes(), got.WithRels(addEach(nil, 0, small...)).AppendEncode(nil)) {
			t.Fatalf("n=%d: EncodeTo with ids differs (%v)", n, err)
		}
	}
}

func addEach(xs []uint64, d uint64, ys ...uint32) []uint64 {
	var out []uint64
	for _, x := range xs {
		out = append(out, x+d)
	}
	for _, y := range ys {
		out = append(out, uint64(y)+d)
	}
	return out
}
