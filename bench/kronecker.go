package bench

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
)

// The graph algorithms' workload is a Graph500 Kronecker graph (the
// generator of the Graph500 benchmark and of the GAP Benchmark Suite's
// -g option): 2^scale vertices and EdgeFactor·2^scale edges, each edge
// placed by descending scale levels of a 2×2 matrix of probabilities
//
//	A = .57  B = .19
//	C = .19  D = .05
//
// one bit of source and target per level, then both endpoints mapped
// through a seeded permutation of the vertex ids, so hubs are scattered
// over the id space. Self-loops are dropped; repeated pairs are kept
// (parallel edges, as the Graph500 generator emits them). Each edge gets
// an integer weight uniform in [1, 255], as GAP's weighted Kronecker
// graphs have. The graph is undirected: each edge is written once and
// the algorithms read it with direction 'UNDIRECTED'.
//
// Generation streams: edges are drawn in blocks of kronBlock, block b
// from its own generator seeded by (seed, b), on all cores, and written
// in block order, so the files are the same whatever the core count and
// memory stays at a few blocks of text (plus the 4-byte permutation).

// Graph500's Kronecker parameters.
const (
	KronA, KronB, KronC = 0.57, 0.19, 0.19 // D = 1 - A - B - C = 0.05
	KronEdgeFactor      = 16
	// KronMaxWeight bounds the integer weights 1..KronMaxWeight.
	KronMaxWeight = 255
)

// kronBlock is the number of edges drawn from one generator.
const kronBlock = 1 << 16

// Level thresholds on a 32-bit uniform draw (one draw per level).
var (
	kronTA   = threshold(KronA)
	kronTAB  = threshold(KronA + KronB)
	kronTABC = threshold(KronA + KronB + KronC)
)

func threshold(p float64) uint32 { return uint32(p * (1 << 32)) }

// KronStats is what WriteKronecker wrote.
type KronStats struct {
	Scale    int
	Vertices int64
	// Edges counts the edges written; SelfLoops the drawn edges dropped
	// because both ends were the same vertex (Edges + SelfLoops =
	// EdgeFactor·Vertices).
	Edges, SelfLoops int64
}

// KronFiles are the names WriteKronecker gives its files: the node file
// (header id:INT64) and the edge file (from:INT64,to:INT64,weight:DOUBLE),
// the import formats of docs/import.md.
const (
	KronNodesFile = "nodes.csv"
	KronEdgesFile = "edges.csv"
)

// WriteKronecker writes the Kronecker graph of scale and seed into dir
// (created if missing) as CSV files for quiver import --nodes
// V=nodes.csv --relationships E=edges.csv, using workers goroutines (0:
// GOMAXPROCS); the files do not depend on workers.
func WriteKronecker(dir string, scale int, seed uint64, workers int) (KronStats, error) {
	st := KronStats{Scale: scale}
	if scale < 1 || scale > 31 {
		return st, fmt.Errorf("kronecker: scale %d is out of 1..31", scale)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	n := int64(1) << scale
	st.Vertices = n
	err := writeFile(filepath.Join(dir, KronNodesFile), func(w *bufio.Writer) {
		w.WriteString("id:INT64\n")
		var buf []byte
		for v := int64(0); v < n; v++ {
			buf = strconv.AppendInt(buf[:0], v, 10)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
	if err != nil {
		return st, err
	}
	perm := kronPermutation(scale, seed)
	total := KronEdgeFactor * n
	blocks := (total + kronBlock - 1) / kronBlock
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	err = writeFile(filepath.Join(dir, KronEdgesFile), func(w *bufio.Writer) {
		w.WriteString("from:INT64,to:INT64,weight:DOUBLE\n")
		// Rounds of workers·2 blocks: drawn in parallel, written in order.
		round := int64(workers * 2)
		bufs := make([][]byte, round)
		loops := make([]int64, round)
		for first := int64(0); first < blocks; first += round {
			k := min(round, blocks-first)
			var wg sync.WaitGroup
			for i := int64(0); i < k; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					b := first + i
					cnt := min(int64(kronBlock), total-b*kronBlock)
					bufs[i], loops[i] = kronBlockCSV(bufs[i][:0], scale, seed, uint64(b), int(cnt), perm)
				}()
			}
			wg.Wait()
			for i := int64(0); i < k; i++ {
				w.Write(bufs[i])
				st.SelfLoops += loops[i]
			}
		}
	})
	st.Edges = total - st.SelfLoops
	return st, err
}

// kronPermutation is the seeded permutation of the vertex ids.
func kronPermutation(scale int, seed uint64) []uint32 {
	n := 1 << scale
	perm := make([]uint32, n)
	for i := range perm {
		perm[i] = uint32(i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b726f6e)) // "kron"
	rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
	return perm
}

// kronEdge draws one edge's unpermuted endpoints.
func kronEdge(rng *rand.PCG, scale int) (src, dst uint32) {
	var r uint64
	for level := 0; level < scale; level++ {
		if level%2 == 0 {
			r = rng.Uint64()
		} else {
			r >>= 32
		}
		p := uint32(r)
		src, dst = src<<1, dst<<1
		switch {
		case p < kronTA:
		case p < kronTAB:
			dst |= 1
		case p < kronTABC:
			src |= 1
		default:
			src, dst = src|1, dst|1
		}
	}
	return src, dst
}

// kronBlockCSV appends block b's edges as CSV lines to buf; it returns
// the buffer and the self-loops it dropped.
func kronBlockCSV(buf []byte, scale int, seed, b uint64, count int, perm []uint32) ([]byte, int64) {
	rng := rand.NewPCG(seed, b)
	var loops int64
	for range count {
		s, d := kronEdge(rng, scale)
		wt := 1 + rng.Uint64()%KronMaxWeight // modulo bias below 2^-55
		if s == d {
			loops++
			continue
		}
		buf = strconv.AppendUint(buf, uint64(perm[s]), 10)
		buf = append(buf, ',')
		buf = strconv.AppendUint(buf, uint64(perm[d]), 10)
		buf = append(buf, ',')
		buf = strconv.AppendUint(buf, wt, 10)
		buf = append(buf, '\n')
	}
	return buf, loops
}
