package csr

import (
	"errors"
	"math/rand"
	"slices"
	"testing"
)

func TestEncodeRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 7, 300, 70000} {
		var edges []Edge
		for i := 0; i < n*3 && n > 0; i++ {
			rel := uint64(i)
			if i%5 == 0 {
				rel += 1 << 33 // wide relationship ids
			}
			edges = append(edges, Edge{Src: uint64(rnd.Intn(n)), Dst: uint64(rnd.Intn(n)), Rel: rel})
		}
		c := Build(n, edges)
		b := c.AppendEncode(nil)
		d, err := Decode(b)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if err := d.Check(); err != nil {
			t.Fatalf("n=%d: decoded CSR: %v", n, err)
		}
		if d.NumNodes() != n || d.NumEdges() != len(edges) {
			t.Fatalf("n=%d: %d nodes %d edges", n, d.NumNodes(), d.NumEdges())
		}
		for v := uint64(0); v < uint64(n); v++ {
			if !slices.Equal(c.AppendNeighbors(nil, v), d.AppendNeighbors(nil, v)) || !slices.Equal(c.Rels(v), d.Rels(v)) {
				t.Fatalf("n=%d node %d differs", n, v)
			}
		}
		// Every truncation is an error, never a panic.
		for _, cut := range []int{0, 3, len(b) / 3, len(b) / 2, len(b) - 1} {
			if cut >= len(b) {
				continue
			}
			if _, err := Decode(b[:cut]); err == nil {
				t.Fatalf("n=%d: truncation at %d of %d decoded", n, cut, len(b))
			}
		}
	}
}

func TestDecodeCorrupt(t *testing.T) {
	c := Build(4, []Edge{{0, 1, 0}, {0, 2, 1}, {0, 3, 2}, {2, 1, 3}})
	b := c.AppendEncode(nil)
	for i := len(encodeMagic); i < len(b); i++ {
		x := slices.Clone(b)
		x[i] ^= 0xff
		d, err := Decode(x)
		if err == nil {
			// Some flips (a relationship id) still decode to a valid CSR.
			if err := d.Check(); err != nil && !errors.Is(err, ErrDuplicateRel) {
				t.Fatalf("flip at %d decoded to an invalid CSR: %v", i, err)
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Build(3, []Edge{{0, 1, 0}, {1, 2, 1}, {2, 0, 2}}).AppendEncode(nil))
	f.Add([]byte(encodeMagic + "\x02\x01\x00\x01\x00\x04"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, err := Decode(b); err == nil {
			for v := uint64(0); v < uint64(c.NumNodes()); v++ {
				c.AppendNeighbors(nil, v)
			}
		}
	})
}

func TestEncodeSequentialRels(t *testing.T) {
	c := Build(5, []Edge{{0, 1, 7}, {0, 1, 3}, {4, 0, 9}, {2, 2, 1}}).WithSequentialRels(100)
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	b := c.AppendEncode(nil)
	d, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for v := uint64(0); v < 5; v++ {
		if !slices.Equal(c.AppendNeighbors(nil, v), d.AppendNeighbors(nil, v)) || !slices.Equal(c.Rels(v), d.Rels(v)) {
			t.Fatalf("node %d differs", v)
		}
	}
	if got := d.Rels(0); len(got) != 2 || got[0] != 100 || got[1] != 101 {
		t.Fatalf("rels of 0: %v", got)
	}
	// A hostile slot count with no blocks to back it is refused before
	// anything is allocated.
	bad := []byte(encodeMagic + "\x01\xff\xff\xff\xff\x0f\x00\x00\x00")
	if _, err := Decode(bad); err == nil {
		t.Fatal("decoded")
	}
}

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
