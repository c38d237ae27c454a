package csr

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchGraph returns the edges of a graph of n nodes and n*avg edges.
// Source degrees follow a power law (Chung-Lu weights: node rank x gets a
// share of x^(-2/3), so degrees fall as d^-2.5; with avg 8 a third of the
// lists hold 0..3 ids and the top hub about 80,000); destinations are uniform ("random", the worst case for
// frame of reference) or near the source ("local", as after a
// locality-preserving bulk load).
func benchGraph(n, avg int, local bool) []Edge {
	r := rand.New(rand.NewPCG(42, 42))
	es := make([]Edge, 0, n*avg)
	for len(es) < n*avg {
		u := r.Float64()
		src := (uint64(u*u*u*float64(n)) * 2654435761) % uint64(n) // spread hubs over the id space
		dst := r.Uint64N(uint64(n))
		if local {
			dst = (src + r.Uint64N(1024)) % uint64(n)
		}
		es = append(es, Edge{src, dst, uint64(len(es))})
	}
	return es
}

// sizes reports the CSR's bytes per edge: all of it, and the neighbour ids
// alone (blocks + start table) against 8 for plain uint64s.
func sizes(c *CSR) (total, ids float64) {
	m := float64(max(c.NumEdges(), 1))
	idBytes := len(c.data) + 4*len(c.start32) + 8*len(c.start64)
	all := idBytes + 8*len(c.offsets) + 8*len(c.rels)
	return float64(all) / m, float64(idBytes) / m
}

var benchShapes = []struct {
	name  string
	n     int
	avg   int
	local bool
}{
	{"powerlaw-random", 1 << 20, 8, false},
	{"powerlaw-local", 1 << 20, 8, true},
	{"dense-local", 1 << 14, 512, true},
}

func BenchmarkDecode(b *testing.B) {
	for _, s := range benchShapes {
		c := Build(s.n, benchGraph(s.n, s.avg, s.local))
		b.Run(s.name, func(b *testing.B) {
			buf := make([]uint64, 0, 1<<16)
			for b.Loop() {
				for v := range uint64(c.NumNodes()) {
					buf = c.AppendNeighbors(buf[:0], v)
				}
			}
			total, ids := sizes(c)
			b.ReportMetric(total, "B/edge")
			b.ReportMetric(ids, "idB/edge")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.NumEdges()), "ns/edge")
		})
	}
}

// BenchmarkCopyPlain is the baseline BenchmarkDecode must be judged by: the
// same walk appending the plain relationship ids, as an uncompressed CSR
// would copy its neighbour ids.
func BenchmarkCopyPlain(b *testing.B) {
	for _, s := range benchShapes {
		c := Build(s.n, benchGraph(s.n, s.avg, s.local))
		b.Run(s.name, func(b *testing.B) {
			buf := make([]uint64, 0, 1<<16)
			for b.Loop() {
				for v := range uint64(c.NumNodes()) {
					buf = c.AppendRels(buf[:0], v)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.NumEdges()), "ns/edge")
		})
	}
}

// BenchmarkUnpack is the inner loop alone over full blocks of each width.
func BenchmarkUnpack(b *testing.B) {
	for _, w := range []uint{0, 8, 13, 20, 32, 56} {
		b.Run(fmt.Sprintf("width%d", w), func(b *testing.B) {
			src := make([]byte, packedLen(128, w)+padBytes)
			out := make([]uint64, 128)
			for b.Loop() {
				unpack(out, 128, src, w, 7)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(out)), "ns/edge")
		})
	}
}

func BenchmarkBuild(b *testing.B) {
	for _, s := range benchShapes {
		es := benchGraph(s.n, s.avg, s.local)
		b.Run(s.name, func(b *testing.B) {
			for b.Loop() {
				Build(s.n, es)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(es)), "ns/edge")
		})
	}
}

// BenchmarkApply measures one small commit on a large graph: it must cost
// O(groups + touched), not O(edges).
func BenchmarkApply(b *testing.B) {
	const n = 1 << 20
	es := benchGraph(n, 8, false)
	a := NewAdjacency(Build(n, es))
	a.Base().slotOf(0) // build the relationship index outside the loop
	r := rand.New(rand.NewPCG(1, 1))
	next, del := uint64(1<<40), uint64(0)
	for b.Loop() {
		ins := []Edge{{r.Uint64N(n), r.Uint64N(n), next}, {r.Uint64N(n), r.Uint64N(n), next + 1}}
		a = a.Apply(ins, []uint64{del}, next)
		next += 2
		del++ // base ids are 0..m-1
	}
}

// BenchmarkDirtyNeighbors reads lists of dirty nodes (base decode, filter
// of deletes, merge of inserts).
func BenchmarkDirtyNeighbors(b *testing.B) {
	const n = 1 << 16
	es := benchGraph(n, 16, true)
	a := NewAdjacency(Build(n, es))
	var ins []Edge
	var del []uint64
	for i := range n {
		ins = append(ins, Edge{uint64(i), uint64(i * 7 % n), uint64(1<<40 + i)})
		if i%4 == 0 {
			del = append(del, uint64(i*3))
		}
	}
	a = a.Apply(ins, del, 1)
	var nb, rl []uint64
	for b.Loop() {
		for v := range uint64(n) {
			nb, rl = a.AppendNeighbors(nb[:0], rl[:0], v)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(a.NumEdges()), "ns/edge")
}
