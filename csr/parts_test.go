package csr

import (
	"math/rand"
	"slices"
	"sync"
	"testing"
)

// storedParts is a CSR in its stored form: parts, their indexes and
// blocks, and its slot ids.
type storedParts struct {
	n, m, dataLen uint64
	parts         []Part
	index, blocks [][]byte
	rels          []uint64
	ids           IDs
	base          uint64
}

func store(c *CSR, maxNodes, maxSlots uint64, wide int) *storedParts {
	s := &storedParts{n: uint64(c.NumNodes()), m: uint64(c.NumEdges()), dataLen: c.DataLen(), parts: c.Parts(maxNodes, maxSlots)}
	base, seq := c.SequentialBase()
	s.ids, s.base = IDs64, base
	if seq {
		s.ids = SeqIDs
	} else if c.rels32 != nil || wide == 32 {
		s.ids = IDs32
	}
	for _, p := range s.parts {
		s.index = append(s.index, c.AppendIndex(nil, p))
		s.blocks = append(s.blocks, slices.Clone(c.Blocks(p)))
	}
	for sl := range s.m {
		s.rels = append(s.rels, c.SlotRel(sl))
	}
	return s
}

// load assembles s with one goroutine per part.
func (s *storedParts) load() (*CSR, error) {
	l, err := NewLoader(s.n, s.m, s.dataLen, s.parts, s.ids, s.base)
	if err != nil {
		return nil, err
	}
	loops := make([][]uint64, len(s.parts))
	errs := make([]error, len(s.parts))
	var wg sync.WaitGroup
	for p := range s.parts {
		wg.Go(func() {
			copy(l.Data(p), s.blocks[p])
			r32, r64 := l.Rels32(p), l.Rels64(p)
			first := s.parts[p].Slot
			loops[p], errs[p] = l.Load(p, s.index[p], func(_, slot uint64, nbrs []uint64) error {
				for i := range nbrs {
					if r32 == nil && r64 == nil {
						break
					}
					id := s.rels[slot+uint64(i)]
					if r32 != nil {
						r32[slot-first+uint64(i)] = uint32(id)
					}
					if r64 != nil {
						r64[slot-first+uint64(i)] = id
					}
				}
				return nil
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return l.CSR(loops), nil
}

func randomCSR(rnd *rand.Rand, n int, seq bool) *CSR {
	var edges []Edge
	for i := 0; i < n*4 && n > 0; i++ {
		src := uint64(rnd.Intn(n))
		if i%7 == 0 {
			src = 0 // a hub, longer than a block
		}
		edges = append(edges, Edge{Src: src, Dst: uint64(rnd.Intn(n)), Rel: uint64(i) * 3})
	}
	c := Build(n, edges)
	if seq {
		c = c.WithSequentialRels(100)
	}
	return c
}

// TestPartsRoundTrip stores CSRs as parts of several sizes and loads them
// back concurrently: the same lists, ids, loops, and a valid CSR.
func TestPartsRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 7, 300, 5000} {
		for _, ids := range []IDs{SeqIDs, IDs32, IDs64} {
			c := randomCSR(rnd, n, ids == SeqIDs)
			for _, size := range [][2]uint64{{1, 1}, {3, 1000}, {1000, 17}, {1 << 20, 1 << 20}} {
				got, err := store(c, size[0], size[1], map[IDs]int{IDs32: 32, IDs64: 64}[ids]).load()
				if err != nil {
					t.Fatalf("n=%d ids=%d parts %v: %v", n, ids, size, err)
				}
				if err := got.Check(); err != nil {
					t.Fatalf("n=%d: loaded CSR: %v", n, err)
				}
				if got.NumNodes() != n || got.NumEdges() != c.NumEdges() || !slices.Equal(got.Loops(), c.findLoops()) {
					t.Fatalf("n=%d: %d nodes %d edges loops %v", n, got.NumNodes(), got.NumEdges(), got.Loops())
				}
				for v := uint64(0); v < uint64(n); v++ {
					if !slices.Equal(c.AppendNeighbors(nil, v), got.AppendNeighbors(nil, v)) || !slices.Equal(c.AppendRels(nil, v), got.AppendRels(nil, v)) {
						t.Fatalf("n=%d node %d differs", n, v)
					}
				}
			}
		}
	}
}

// TestPartsCorrupt: every byte flip of an index or a block, and every
// inconsistent part table, is an error (or, for a flip the format cannot
// see, a CSR that still checks), never a panic.
func TestPartsCorrupt(t *testing.T) {
	rnd := rand.New(rand.NewSource(2))
	c := randomCSR(rnd, 40, true)
	s := store(c, 8, 30, 0)
	for p := range s.parts {
		for _, bufs := range [][][]byte{s.index, s.blocks} {
			for i := range bufs[p] {
				for _, bit := range []byte{0x01, 0x80} {
					bufs[p][i] ^= bit
					got, err := s.load()
					if err == nil {
						if err := got.Check(); err != nil {
							t.Fatalf("part %d byte %d flipped: loaded an invalid CSR: %v", p, i, err)
						}
					}
					bufs[p][i] ^= bit
				}
			}
		}
	}
	for i := range s.parts {
		for _, bad := range []func(*Part){
			func(p *Part) { p.Hi++ }, func(p *Part) { p.SlotEnd++ }, func(p *Part) { p.PosEnd-- }, func(p *Part) { p.Lo = p.Hi },
		} {
			x := *s
			x.parts = slices.Clone(s.parts)
			bad(&x.parts[i])
			if _, err := x.load(); err == nil {
				t.Fatalf("part %d altered: loaded", i)
			}
		}
	}
	// An index cut short or too long.
	x := *s
	x.index = slices.Clone(s.index)
	x.index[0] = x.index[0][:len(x.index[0])-1]
	if _, err := x.load(); err == nil {
		t.Fatal("short index loaded")
	}
	x.index[0] = append(slices.Clone(s.index[0]), 0)
	if _, err := x.load(); err == nil {
		t.Fatal("long index loaded")
	}
}

// TestSlotEdge: SlotEdge and EachSlot name every slot's node and
// neighbour.
func TestSlotEdge(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	c := randomCSR(rnd, 500, true)
	var nodes, nbrs []uint64
	for v := uint64(0); v < 500; v++ {
		for _, d := range c.AppendNeighbors(nil, v) {
			nodes, nbrs = append(nodes, v), append(nbrs, d)
		}
	}
	for s := range uint64(c.NumEdges()) {
		if v, d := c.SlotEdge(s); v != nodes[s] || d != nbrs[s] {
			t.Fatalf("slot %d: %d→%d, want %d→%d", s, v, d, nodes[s], nbrs[s])
		}
	}
	for _, r := range [][2]uint64{{0, 0}, {0, 1}, {5, 300}, {1, uint64(c.NumEdges())}} {
		next := r[0]
		c.EachSlot(r[0], r[1], func(s, v, d uint64) {
			if s != next || v != nodes[s] || d != nbrs[s] {
				t.Fatalf("EachSlot %v: slot %d (want %d) %d→%d", r, s, next, v, d)
			}
			next++
		})
		if next != r[1] {
			t.Fatalf("EachSlot %v stopped at %d", r, next)
		}
	}
}

// FuzzDecode loads a CSR from fuzzed parts: byte 0 is the node count,
// byte 1 the number of parts, then every part takes its node, slot and
// byte counts (one byte each) and its index and blocks (a length byte
// and that many bytes each). Any input must load a CSR that checks, or
// fail; never panic.
func FuzzDecode(f *testing.F) {
	c := Build(3, []Edge{{0, 1, 0}, {1, 2, 1}, {2, 0, 2}, {0, 2, 3}})
	var seed []byte
	seed = append(seed, 3, 1)
	p := c.Parts(10, 10)[0]
	seed = append(seed, byte(p.Hi-p.Lo), byte(p.SlotEnd-p.Slot), byte(p.PosEnd-p.Pos))
	idx := c.AppendIndex(nil, p)
	seed = append(append(seed, byte(len(idx))), idx...)
	seed = append(append(seed, byte(len(c.Blocks(p)))), c.Blocks(p)...)
	f.Add(seed)
	f.Add([]byte{0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 {
			return
		}
		s := &storedParts{n: uint64(b[0]), ids: SeqIDs}
		np, b := int(b[1]), b[2:]
		var at Part
		for range np {
			if len(b) < 3 {
				return
			}
			at = Part{Lo: at.Hi, Hi: at.Hi + uint64(b[0]), Slot: at.SlotEnd, SlotEnd: at.SlotEnd + uint64(b[1]), Pos: at.PosEnd, PosEnd: at.PosEnd + uint64(b[2])}
			s.parts = append(s.parts, at)
			b = b[3:]
			for _, dst := range []*[][]byte{&s.index, &s.blocks} {
				if len(b) < 1 || len(b) < 1+int(b[0]) {
					return
				}
				n := 1 + int(b[0]) // in int: 1+b[0] wraps to 0 for a length byte of 255
				*dst = append(*dst, b[1:n])
				b = b[n:]
			}
			if uint64(len(s.blocks[len(s.blocks)-1])) != at.PosEnd-at.Pos {
				return // a reader checks a part's stored size first
			}
		}
		s.m, s.dataLen = at.SlotEnd, at.PosEnd
		got, err := s.load()
		if err != nil {
			return
		}
		if err := got.Check(); err != nil {
			t.Fatalf("loaded a CSR that does not check: %v", err)
		}
		for v := range uint64(got.NumNodes()) {
			got.AppendNeighbors(nil, v)
		}
	})
}
