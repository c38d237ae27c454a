package algo

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// Kernel benchmarks on a Graph500-parameter Kronecker graph (A=.57,
// B=C=.19, 16 edges per vertex, symmetrized) of 2^benchScale vertices,
// built directly as a projection: they time the algorithms, not the
// projection or the query layer.
const benchScale = 18

var benchGraph = sync.OnceValue(func() *Graph {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 1 << benchScale
	m := 16 * n
	src, dst := make([]uint32, 0, 2*m), make([]uint32, 0, 2*m)
	for range m {
		var u, v uint32
		for bit := range benchScale {
			r := rng.Float64()
			switch {
			case r < 0.57:
			case r < 0.76:
				v |= 1 << bit
			case r < 0.95:
				u |= 1 << bit
			default:
				u |= 1 << bit
				v |= 1 << bit
			}
		}
		src, dst = append(src, u, v), append(dst, v, u)
	}
	off := make([]uint32, n+1)
	for _, s := range src {
		off[s+1]++
	}
	for i := range n {
		off[i+1] += off[i]
	}
	nbr := make([]uint32, len(src))
	at := slices.Clone(off)
	for i, s := range src {
		nbr[at[s]] = dst[i]
		at[s]++
	}
	for v := range n {
		slices.Sort(nbr[off[v]:off[v+1]])
	}
	g := &Graph{N: n, Out: CSR{Off: off, Nbr: nbr}, Symmetric: true, Sorted: true}
	g.In = g.Out
	g.OutW = make([]float64, len(nbr))
	for i := range g.OutW {
		g.OutW[i] = float64(1 + rng.IntN(255))
	}
	return g
})

func BenchmarkBFS(b *testing.B) {
	g := benchGraph()
	b.ResetTimer()
	for b.Loop() {
		if _, err := BFS(&Run{}, g, 1, -1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Out.Nbr))/2/(b.Elapsed().Seconds()/float64(b.N))/1e6, "MTEPS")
}

func BenchmarkSSSP(b *testing.B) {
	g := benchGraph()
	b.ResetTimer()
	for b.Loop() {
		if _, err := SSSP(&Run{}, g, 1, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWCC(b *testing.B) {
	g := benchGraph()
	b.ResetTimer()
	for b.Loop() {
		if _, err := WCC(&Run{}, g); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPageRank10(b *testing.B) {
	g := benchGraph()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := PageRank(&Run{}, g, 0.85, 10, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLCC(b *testing.B) {
	g := benchGraph()
	b.ResetTimer()
	for b.Loop() {
		if _, err := LCC(&Run{}, g); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCDLP(b *testing.B) {
	g := benchGraph()
	seed := make([]int64, g.N)
	b.ResetTimer()
	for b.Loop() {
		for v := range seed {
			seed[v] = int64(v)
		}
		if _, err := CDLP(&Run{}, g, seed, 10); err != nil {
			b.Fatal(err)
		}
	}
}
