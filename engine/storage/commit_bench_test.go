package storage

import (
	"fmt"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// BenchmarkCommitCreateNode commits one node (two labels, two INTEGER
// properties) per transaction on top of a bulk-loaded graph of n nodes
// whose two labels alternate, so that their bitmaps are not runs. What a
// commit copies of the versions it shares with must not grow with n.
func BenchmarkCommitCreateNode(b *testing.B) {
	for _, n := range []int{0, 1 << 20, 1 << 23} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			s := alternatingLabels(b, n)
			cat := s.Catalog()
			labels := []catalog.LabelID{cat.EnsureLabel("A"), cat.EnsureLabel("B")}
			keys := []catalog.KeyID{cat.EnsureKey("id"), cat.EnsureKey("c")}
			vals := make([]vector.Value, 2)
			var i int64
			for b.Loop() {
				tx := s.Begin()
				vals[0], vals[1] = i, i%1000
				if _, err := tx.CreateNode(labels[i%2:i%2+1], keys, vals); err != nil {
					b.Fatal(err)
				}
				if _, err := tx.Commit(); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// alternatingLabels bulk-loads n nodes with properties id and c, the even
// ones labelled A and the odd ones B.
func alternatingLabels(tb testing.TB, n int) *Store {
	if n == 0 {
		return New()
	}
	ids, cs := make([]int64, n), make([]int64, n)
	for i := range ids {
		ids[i], cs[i] = int64(i), int64(i%1000)
	}
	// A bulk set has one label set: the alternating labels are set on
	// the loaded version before anyone reads it.
	s, err := BulkLoad([]BulkNodes{{Count: n, Cols: []BulkColumn{{Key: "id", Type: vector.Int64, I64: ids}, {Key: "c", Type: vector.Int64, I64: cs}}}}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	cat := s.Catalog()
	a, bl := cat.EnsureLabel("A"), cat.EnsureLabel("B")
	v := s.head
	for len(v.labels) <= int(bl) {
		v.labels = append(v.labels, nil)
	}
	v.labels[a], v.labels[bl] = roaring.New(), roaring.New()
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			v.labels[a].Add(uint32(i))
		} else {
			v.labels[bl].Add(uint32(i))
		}
	}
	return s
}
