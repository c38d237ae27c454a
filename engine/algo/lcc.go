package algo

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
)

// LCC returns each vertex's local clustering coefficient, Graphalytics'
// definition: N(v) = in ∪ out neighbours of v, each once, v excluded;
// 0 when |N(v)| <= 1; else the number of edges u→w with u ≠ w both in
// N(v) (parallel edges once) over |N(v)|·(|N(v)|−1). It needs sorted Out
// and In lists (Project sorts them unless relationship ids are kept).
//
// Every pair u, w counted for v closes a triangle {v, u, w} of the
// undirected simple graph U (x~y when x→y or y→x), and such a triangle
// adds to v the number of directions its edge u~w has, e(u,w) ∈ {1, 2}.
// So LCC enumerates U's triangles once each and gives every corner the
// e of the opposite edge:
//
//   - U is oriented from lower to higher rank (degree in U, then vertex):
//     each vertex keeps only its higher-ranked neighbours, with each
//     edge's e (one byte), which bounds every list by about √(2|U|) and
//     makes the enumeration O(|U|^1.5);
//   - for each x (parallel over ranges balanced by oriented edges), its
//     list is marked in a per-worker array, then for each y in it every z
//     of y's list is probed: a mark is the triangle x<y<z (triangles).
//
// Counts are integers (per worker, then summed), so the result does not
// depend on the workers. At Kronecker scale 18 (2 workers) this takes
// 0.5 s where intersecting each neighbourhood with its members' lists
// took 24–27 s.
func LCC(r *Run, g *Graph) ([]float64, error) {
	if !g.Sorted {
		panic("BUG: algo: LCC needs sorted lists")
	}
	// Rounds are the phases: 0 degrees and orientation, 1 triangles, 2
	// coefficients.
	if err := r.round("lcc", 0); err != nil {
		return nil, err
	}
	sym := g.Symmetric || g.In.Off == nil
	deg, err := makeSlice[uint32](r, g.N, u32Bytes)
	if err != nil {
		return nil, err
	}
	defer r.release(int64(g.N) * u32Bytes)
	err = r.parallelFor(g.N, morselNodes, func(_, lo, hi int) error {
		for v := lo; v < hi; v++ {
			n := 0
			union(g, sym, uint32(v), func(uint32, uint8) { n++ })
			deg[v] = uint32(n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	up, err := orient(r, g, sym, deg)
	if err != nil {
		return nil, err
	}
	defer r.release(up.bytes())
	if err := r.round("lcc", 1); err != nil {
		return nil, err
	}
	cnt, err := triangles(r, g.N, up, sym)
	if err != nil {
		return nil, err
	}
	defer r.release(int64(g.N) * u64Bytes)
	if err := r.round("lcc", 2); err != nil {
		return nil, err
	}
	coef, err := makeSlice[float64](r, g.N, u64Bytes)
	if err != nil {
		return nil, err
	}
	err = r.Blocks(len(coef), func(lo, hi int) error {
		for v := lo; v < hi; v++ {
			if c, k := cnt[up.rank[v]], float64(deg[v]); c != 0 {
				coef[v] = float64(c) / (k * (k - 1))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return coef, nil
}

// union calls emit(u, e) for every u in N(v), ascending, with e the
// number of the directions v→u, u→v that are edges (2 on a symmetric
// graph, whose In is Out).
func union(g *Graph, sym bool, v uint32, emit func(u uint32, e uint8)) {
	out := g.Out.List(v)
	if sym {
		last := noVertex
		for _, u := range out {
			if u != last && u != v {
				emit(u, 2)
			}
			last = u
		}
		return
	}
	in := g.In.List(v)
	i, j := 0, 0
	for i < len(out) || j < len(in) {
		var u uint32
		var e uint8
		switch {
		case j == len(in) || i < len(out) && out[i] < in[j]:
			u, e = out[i], 1
		case i == len(out) || in[j] < out[i]:
			u, e = in[j], 1
		default:
			u, e = out[i], 2
		}
		for i < len(out) && out[i] == u {
			i++
		}
		for j < len(in) && in[j] == u {
			j++
		}
		if u != v {
			emit(u, e)
		}
	}
}

// oriented is U oriented from lower to higher rank, over ranks: row
// rank[v] lists the ranks of v's higher-ranked neighbours, E[k] is e of
// the edge to Nbr[k]. Numbering by rank puts the hubs, which most lists
// point to, side by side at the end of the marks and of the rows.
// BenchmarkLCC (Kronecker scale 18, 2 workers, 3 interleaved runs):
// 0.85–0.90 s over vertex ids, 0.69–0.74 s over ranks.
type oriented struct {
	CSR
	E       []uint8
	rank    []uint32
	maxList int
}

func (o *oriented) bytes() int64 {
	return int64(len(o.Off)+len(o.Nbr)+len(o.rank))*u32Bytes + int64(len(o.E))
}

// ranks numbers the vertices by (degree, vertex), a counting sort. Its
// four passes (each O(N): degrees are below N) check the stop per block.
func ranks(r *Run, deg []uint32) ([]uint32, error) {
	rank, err := makeSlice[uint32](r, len(deg), u32Bytes)
	if err != nil {
		return nil, err
	}
	maxd := uint32(0)
	err = r.Blocks(len(deg), func(lo, hi int) error {
		m := maxd // a local: a captured variable is stored every element
		for _, d := range deg[lo:hi] {
			m = max(m, d)
		}
		maxd = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	n := int64(maxd+2) * u32Bytes
	if err := r.charge(n); err != nil {
		return nil, err
	}
	defer r.release(n)
	start := make([]uint32, maxd+2)
	err = r.Blocks(len(deg), func(lo, hi int) error {
		for _, d := range deg[lo:hi] {
			start[d+1]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = r.Blocks(len(start), func(lo, hi int) error {
		for d := max(lo, 1); d < hi; d++ {
			start[d] += start[d-1]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = r.Blocks(len(deg), func(lo, hi int) error {
		for v, d := range deg[lo:hi] {
			rank[lo+v] = start[d]
			start[d]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rank, nil
}

// orient builds U's higher-ranked neighbour lists (rank: degree in U,
// then vertex).
func orient(r *Run, g *Graph, sym bool, deg []uint32) (oriented, error) {
	var o oriented
	var err error
	if o.Off, err = makeSlice[uint32](r, g.N+1, u32Bytes); err != nil {
		return o, err
	}
	if o.rank, err = ranks(r, deg); err != nil {
		return o, err
	}
	rank := o.rank
	err = r.parallelFor(g.N, morselNodes, func(_, lo, hi int) error {
		for v := lo; v < hi; v++ {
			n, rv := uint32(0), rank[v]
			union(g, sym, uint32(v), func(u uint32, _ uint8) {
				if rank[u] > rv {
					n++
				}
			})
			o.Off[rv+1] = n
		}
		return nil
	})
	if err != nil {
		return o, err
	}
	var sum uint64 // offsets by rank
	err = r.Blocks(g.N+1, func(lo, hi int) error {
		s, longest := sum, o.maxList // locals: captured variables are stored every element
		for v := max(lo, 1); v < hi; v++ {
			longest = max(longest, int(o.Off[v]))
			s += uint64(o.Off[v])
			if s > math.MaxUint32 {
				return errs.New(errs.CodeOutOfMemory, errs.CatResource, "algo: lcc: more than 2^32 undirected edges")
			}
			o.Off[v] = uint32(s)
		}
		sum, o.maxList = s, longest
		return nil
	})
	if err != nil {
		return o, err
	}
	if o.Nbr, err = makeSlice[uint32](r, int(sum), u32Bytes); err != nil {
		return o, err
	}
	if o.E, err = makeSlice[uint8](r, int(sum), 1); err != nil {
		return o, err
	}
	err = r.parallelFor(g.N, morselNodes, func(_, lo, hi int) error {
		for v := lo; v < hi; v++ {
			rv := rank[v]
			at := o.Off[rv]
			union(g, sym, uint32(v), func(u uint32, e uint8) {
				if ru := rank[u]; ru > rv {
					o.Nbr[at], o.E[at] = ru, e
					at++
				}
			})
		}
		return nil
	})
	return o, err
}

// stopEvery is the work (probes) between two stop checks inside one
// vertex's enumeration: a hub may hold a worker for long.
const stopEvery = 1 << 20

// triangles enumerates the triangles of the oriented U and returns, per
// vertex, the sum of e over the edges opposite it (with sym every e is 2
// and is not read). For each x, mark[z] is 1 + z's position in x's list
// and hit[i] (over lanes) collects what the triangles through x's i-th
// neighbour give it; hit[0] takes the probes that miss, so the symmetric
// inner loop is one unconditional increment per probe (a branch per
// probe mispredicted often enough to cost twice as much). Each worker
// has its own marks, hits and counts, summed at the end: no atomics.
func triangles(r *Run, n int, up oriented, sym bool) ([]uint64, error) {
	if up.maxList < math.MaxUint16 {
		return trianglesBy[uint16](r, n, up, sym, 2)
	}
	return trianglesBy[uint32](r, n, up, sym, 4)
}

// lanes is the number of hit counters per position (one cache line):
// the symmetric loop spreads consecutive probes over them, so that the
// misses, which all count into position 0, form eight independent
// chains of increments instead of one (an increment waits for the
// previous one's store). BenchmarkLCC (Kronecker scale 18, 2 workers, 3
// interleaved runs of 3): one lane 775–791 ms, four 518–547 ms, eight
// 483–501 ms.
const lanes = 8

// trianglesBy is triangles with marks of type M (size bytes each). The
// enumeration over a worker's range of vertices stays in one closure: it
// is the tight loop of the algorithm, and its scratch slices are hoisted
// into locals for it.
func trianglesBy[M uint16 | uint32](r *Run, n int, up oriented, sym bool, size int64) ([]uint64, error) {
	nw := r.workers()
	type scratch struct {
		mark []M
		hit  [][lanes]uint64
		cnt  []uint64
	}
	ws := make([]scratch, nw)
	perWorker := int64(n)*size + int64(up.maxList+1)*lanes*u64Bytes + int64(n)*u64Bytes
	defer func() {
		for w := range ws {
			if ws[w].mark != nil {
				r.release(perWorker)
			}
		}
	}()
	cuts, err := ranges(r, up.Off, n)
	if err != nil {
		return nil, err
	}
	off, nbr, es := up.Off, up.Nbr, up.E
	err = r.overRanges(cuts, func(w, _, lo, hi int) error {
		sc := &ws[w]
		if sc.mark == nil {
			if err := r.charge(perWorker); err != nil {
				return err
			}
			sc.mark, sc.hit, sc.cnt = make([]M, n), make([][lanes]uint64, up.maxList+1), make([]uint64, n)
		}
		mark, hit, cnt := sc.mark, sc.hit, sc.cnt
		work := 0
		for x := lo; x < hi; x++ {
			lx, ex := nbr[off[x]:off[x+1]], es[off[x]:off[x+1]]
			if len(lx) < 2 {
				continue
			}
			ex = ex[:len(lx)]
			for i, z := range lx {
				mark[z] = M(i + 1)
			}
			var cx uint64
			for i, y := range lx {
				ly := nbr[off[y]:off[y+1]]
				var cy uint64
				if sym {
					miss := sum8(&hit[0])
					j := 0
					for ; j+lanes <= len(ly); j += lanes {
						q := ly[j : j+lanes : j+lanes]
						hit[mark[q[0]]][0]++
						hit[mark[q[1]]][1]++
						hit[mark[q[2]]][2]++
						hit[mark[q[3]]][3]++
						hit[mark[q[4]]][4]++
						hit[mark[q[5]]][5]++
						hit[mark[q[6]]][6]++
						hit[mark[q[7]]][7]++
					}
					for ; j < len(ly); j++ {
						hit[mark[ly[j]]][0]++
					}
					cy = uint64(len(ly)) - (sum8(&hit[0]) - miss)
					cx += cy
				} else {
					exy := uint64(ex[i])
					ey := es[off[y]:off[y+1]]
					ey = ey[:len(ly)]
					for j, z := range ly {
						if m := mark[z]; m != 0 {
							cx += uint64(ey[j])
							cy += uint64(ex[m-1])
							hit[m][0] += exy
						}
					}
				}
				cnt[y] += cy
				if work += len(ly); work >= stopEvery {
					work = 0
					if err := r.stop(); err != nil {
						return err
					}
				}
			}
			cnt[x] += cx
			for i, z := range lx {
				mark[z] = 0
				h := &hit[i+1]
				cnt[z] += sum8(h)
				*h = [lanes]uint64{}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cnts := make([][]uint64, 0, nw)
	for w := range ws {
		if ws[w].cnt != nil {
			cnts = append(cnts, ws[w].cnt)
		}
	}
	return sumCounts(r, n, cnts, sym)
}

// sumCounts adds up the workers' counts per vertex; with sym the counts
// are of triangles and the sums are of e, which is 2 for every edge.
func sumCounts(r *Run, n int, cnts [][]uint64, sym bool) ([]uint64, error) {
	sum, err := makeSlice[uint64](r, n, u64Bytes)
	if err != nil {
		return nil, err
	}
	for _, add := range cnts {
		err := r.Blocks(len(sum), func(lo, hi int) error {
			s, a := sum[lo:hi], add[lo:hi]
			_ = a[len(s)-1]
			for v := range s {
				s[v] += a[v]
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if sym {
		err := r.Blocks(len(sum), func(lo, hi int) error {
			s := sum[lo:hi]
			for v := range s {
				s[v] *= 2
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// sum8 is the total over a position's lanes.
func sum8(h *[lanes]uint64) uint64 { return h[0] + h[1] + h[2] + h[3] + h[4] + h[5] + h[6] + h[7] }
