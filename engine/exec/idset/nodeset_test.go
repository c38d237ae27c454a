package idset

import (
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestNodeSpan checks that a span yields its ids in chunks, as a range
// when the bitmap has no holes and as the ids otherwise.
func TestNodeSpan(t *testing.T) {
	for _, c := range []struct {
		name  string
		ids   []uint32
		rng   bool
		chunk int
	}{
		{"range", []uint32{5, 6, 7, 8, 9, 10, 11}, true, 3},
		{"holes", []uint32{0, 2, 3, 9, 4000, 70000}, false, 4},
		{"one chunk", []uint32{1, 2}, true, 8},
		{"empty", nil, true, 3},
	} {
		s := SpanOf(roaring.BitmapOf(c.ids...))
		if (s.IDs == nil) != c.rng || s.N != len(c.ids) {
			t.Errorf("%s: span %+v, want range %v of %d ids", c.name, s, c.rng, len(c.ids))
		}
		if want := int64(4 * len(c.ids)); c.rng && s.Bytes() != 0 || !c.rng && s.Bytes() != want {
			t.Errorf("%s: %d bytes", c.name, s.Bytes())
		}
		var got []uint32
		buf := make([]uint32, c.chunk)
		for i := range s.Chunks(c.chunk) {
			ch := s.Chunk(i, c.chunk, buf)
			if len(ch) == 0 || len(ch) > c.chunk {
				t.Errorf("%s: chunk %d of %d ids", c.name, i, len(ch))
			}
			got = append(got, ch...)
		}
		if !slices.Equal(got, c.ids) {
			t.Errorf("%s: chunks yield %v, want %v", c.name, got, c.ids)
		}
	}
}

// TestNodeSet checks membership against the bitmap the set was made of,
// past its last word too, and that nil holds every node.
func TestNodeSet(t *testing.T) {
	ids := []uint32{0, 1, 63, 64, 65, 1000, 4095, 4096}
	s := NodeSetOf(roaring.BitmapOf(ids...))
	for id := uint64(0); id < 10000; id++ {
		if want := slices.Contains(ids, uint32(id)); s.Has(id) != want {
			t.Fatalf("Has(%d) = %v, want %v", id, !want, want)
		}
	}
	if s := NodeSetOf(roaring.New()); s == nil || s.Has(0) {
		t.Error("the set of an empty bitmap must be empty, not nil (every node)")
	}
	if !NodeSet(nil).Has(12345) {
		t.Error("a nil set must hold every node")
	}
}
