package csr

import (
	"errors"
	"slices"
	"testing"
)

// fixture is a small CSR with a multi-block hub, short lists, an isolated
// node, parallel edges and a self-loop.
func fixture() *CSR {
	var es []Edge
	rel := uint64(100)
	for i := range 300 {
		es = append(es, Edge{0, uint64(i % 40), rel})
		rel++
	}
	es = append(es, Edge{1, 2, rel}, Edge{1, 2, rel + 1}, Edge{3, 3, rel + 2}, Edge{4, 39, rel + 3}, Edge{4, 0, rel + 4})
	return Build(41, es)
}

// clone deep-copies c so that a test can corrupt it.
func clone(c *CSR) *CSR {
	return &CSR{
		numNodes: c.numNodes,
		bb:       c.bb,
		offsets:  slices.Clone(c.offsets),
		rels:     slices.Clone(c.rels),
		data:     slices.Clone(c.data),
		start32:  slices.Clone(c.start32),
		start64:  slices.Clone(c.start64),
	}
}

func TestCheckCorruptCSR(t *testing.T) {
	good := fixture()
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	// The hub's first block header: width byte, then the base varint.
	cases := []struct {
		name    string
		corrupt func(c *CSR)
		want    error
	}{
		{"offsets not monotone", func(c *CSR) { c.offsets[1], c.offsets[2] = c.offsets[2], c.offsets[1] }, ErrOffsets},
		{"offsets end", func(c *CSR) { c.offsets[c.numNodes]-- }, ErrOffsets},
		{"offsets start", func(c *CSR) { c.offsets[0] = 1 }, ErrOffsets},
		{"short offsets", func(c *CSR) { c.offsets = c.offsets[:len(c.offsets)-1] }, ErrOffsets},
		{"no start table", func(c *CSR) { c.start32 = nil }, ErrOffsets},
		{"starts not monotone", func(c *CSR) { c.start32[1], c.start32[2] = c.start32[2], c.start32[1] }, ErrOffsets},
		{"starts miss data", func(c *CSR) { c.data = append(c.data, 0) }, ErrOffsets},
		{"padding", func(c *CSR) { c.data[len(c.data)-1] = 1 }, ErrBlock},
		{"width too large", func(c *CSR) { c.data[0] = maxWidth + 1 }, ErrBlock},
		{"gap width", func(c *CSR) { c.bb = 2 }, ErrBlock},
		{"width too small", func(c *CSR) { c.data[0]-- }, ErrBlock},
		{"width larger", func(c *CSR) { c.data[0]++ }, nil}, // misreads the payload
		{"base varint runs on", func(c *CSR) {
			for i := c.start(1); i < c.start(2); i++ {
				c.data[i] = 0xff
			}
		}, ErrBlock},
		{"degree grows", func(c *CSR) {
			c.offsets[4]++ // node 3 gains a slot that node 4 loses
		}, nil},
		{"unsorted slot", func(c *CSR) {
			s := c.offsets[1]
			c.rels[s], c.rels[s+1] = c.rels[s+1], c.rels[s] // parallel edges 1->2
		}, ErrUnsorted},
		{"duplicate slot", func(c *CSR) {
			s := c.offsets[1]
			c.rels[s+1] = c.rels[s]
		}, ErrUnsorted},
		{"neighbour out of range", func(c *CSR) { c.numNodes = 39; c.offsets = c.offsets[:40]; c.start32 = c.start32[:40] }, nil},
		{"duplicate rel", func(c *CSR) { c.rels[len(c.rels)-1] = c.rels[0] }, ErrDuplicateRel},
	}
	for _, tc := range cases {
		c := clone(good)
		tc.corrupt(c)
		err := c.Check()
		if err == nil {
			t.Errorf("%s: Check passed", tc.name)
			continue
		}
		if tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("%s: Check = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestCheckNodeRange builds a list whose neighbour sits at NumNodes.
func TestCheckNodeRange(t *testing.T) {
	c := clone(Build(3, []Edge{{0, 2, 1}}))
	c.numNodes = 2
	c.offsets = []uint64{0, 1, 1}
	c.start32 = []uint32{0, c.start32[1], c.start32[2]}
	c.start32[2] = c.start32[1] // node 1 has no bytes
	if err := c.Check(); !errors.Is(err, ErrNodeRange) {
		t.Fatalf("Check = %v, want ErrNodeRange", err)
	}
}

func TestCheckCorruptOverlay(t *testing.T) {
	build := func() *Adjacency {
		a := NewAdjacency(fixture())
		return a.Apply([]Edge{{5, 6, 1}, {5, 7, 2}, {60, 0, 3}}, []uint64{100, 101}, 9)
	}
	if err := build().Check(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		corrupt func(a *Adjacency)
		want    error
	}{
		{"edge count", func(a *Adjacency) { a.numEdges++ }, ErrOverlay},
		{"dirty count", func(a *Adjacency) { a.groups[0].dirty++ }, ErrOverlay},
		{"empty delta", func(a *Adjacency) { d := a.deltaOf(5); d.ins = nil }, ErrOverlay},
		{"unsorted inserts", func(a *Adjacency) { d := a.deltaOf(5); d.ins[0], d.ins[1] = d.ins[1], d.ins[0] }, ErrUnsorted},
		{"unsorted deletes", func(a *Adjacency) { d := a.deltaOf(0); d.del[0], d.del[1] = d.del[1], d.del[0] }, ErrUnsorted},
		{"deleted id not in base list", func(a *Adjacency) { a.deltaOf(0).del[1].rel = 401 }, ErrOverlay},
		{"deleted id unknown", func(a *Adjacency) { a.deltaOf(0).del[1].rel = 1 << 40 }, ErrOverlay},
		{"index misses insert", func(a *Adjacency) { a.deltaOf(5).ins[0].rel = 77 }, ErrOverlay},
		{"insert duplicates base", func(a *Adjacency) {
			a.deltaOf(5).ins[1].rel = 102
			a.rels.remove(new(editToken), 2)
			a.rels.put(new(editToken), 102, 5)
		}, ErrDuplicateRel},
		{"index count", func(a *Adjacency) { a.rels.len-- }, ErrOverlay},
		{"neighbour beyond bound", func(a *Adjacency) { a.deltaOf(60).ins[0].dst = 1000 }, ErrNodeRange},
		{"future ts", func(a *Adjacency) { a.deltaOf(5).ins[0].ts = 10 }, ErrOverlay},
		{"corrupt base", func(a *Adjacency) { a.base = clone(a.base); a.base.offsets[a.base.numNodes]++ }, ErrOffsets},
	}
	for _, tc := range cases {
		a := build() // fresh: corruptions write into the version's own structures
		tc.corrupt(a)
		if err := a.Check(); !errors.Is(err, tc.want) {
			t.Errorf("%s: Check = %v, want %v", tc.name, err, tc.want)
		}
	}
}
