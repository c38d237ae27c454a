package csr

import (
	"slices"
	"testing"
)

func TestWithMappedRels(t *testing.T) {
	// Parallel edges 0->1 with ids 0, 1, 2 mapped to 9, 5, 7: the run is
	// re-sorted to 5, 7, 9; the single edge keeps its place.
	c := Build(3, []Edge{{0, 1, 0}, {0, 1, 1}, {0, 1, 2}, {0, 2, 3}})
	m := c.WithMappedRels([]uint64{9, 5, 7, 1})
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	if got := m.Rels(0); !slices.Equal(got, []uint64{5, 7, 9, 1}) {
		t.Fatalf("rels %v", got)
	}
}
