package algo

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// ssspRing is the number of buckets a worker keeps in its ring; a vertex
// whose distance falls further ahead waits in the worker's far list, so
// memory stays bounded whatever delta is.
const ssspRing = 1024

var infBits = math.Float64bits(math.Inf(1))

// SSSP returns the least weight of a path from src to every vertex along
// Out edges (+Inf when none), with g.OutW as weights (every edge weighs 1
// when OutW is nil). Delta-stepping, as GAP's: the frontier is the
// current bucket of width delta (delta <= 0 picks defaultDelta);
// workers relax all its edges with an atomic minimum on the distance and
// file improved vertices into their own buckets; the next frontier is the
// smallest non-empty bucket over all workers, the same one again when it
// was refilled. Non-negative float64 values order like their bit
// patterns, so the atomic minimum works on uint64 bits. The distances are
// the least fixed point of d(v) = min d(u)+w, whatever the schedule.
func SSSP(r *Run, g *Graph, src uint32, delta float64) ([]float64, error) {
	dist, err := makeSlice[uint64](r, g.N, u64Bytes)
	if err != nil {
		return nil, err
	}
	if err := fill(r, dist, infBits); err != nil {
		return nil, err
	}
	dist[src] = 0
	sum, err := weightSum(r, g)
	if err != nil {
		return nil, err
	}
	if delta <= 0 || math.IsInf(delta, 0) || math.IsNaN(delta) {
		delta = defaultDelta(g, sum)
	}
	// No distance exceeds the sum of all weights: keeping that sum within
	// 2^40 buckets keeps bucket numbers exact integers.
	delta = max(delta, sum/(1<<40))
	nw := r.workers()
	ws := make([]ssspWorker, nw)
	if err := r.charge(int64(nw) * ssspRing * sliceHeaderBytes); err != nil {
		return nil, err
	}
	for i := range ws {
		ws[i].r = r
		ws[i].ring = make([][]uint32, ssspRing)
	}
	// A vertex is filed again each time its distance improves, so the
	// buckets may hold more entries than vertices: every list grows
	// through growSlice, charged as it grows.
	frontier, err := growSlice[uint32](r, nil, 1, u32Bytes)
	if err != nil {
		return nil, err
	}
	frontier = append(frontier, src)
	var far []uint32
	cur := uint64(0)
	for round := 0; ; round++ {
		if err := r.round("sssp", round); err != nil {
			return nil, err
		}
		lower := float64(cur) * delta
		err := r.parallelFor(len(frontier), 64, func(w, lo, hi int) error {
			ws[w].relax(g, dist, frontier[lo:hi], lower, delta, cur)
			return ws[w].err
		})
		if err != nil {
			return nil, err
		}
		next, ok := nextBucket(ws, cur)
		if !ok {
			if far, next, ok, err = refile(r, ws, far, dist, delta, cur); err != nil {
				return nil, err
			} else if !ok {
				break
			}
		}
		total := 0
		for i := range ws {
			total += len(ws[i].ring[next%ssspRing])
		}
		if frontier, err = growSlice(r, frontier[:0], total, u32Bytes); err != nil {
			return nil, err
		}
		for i := range ws {
			b := &ws[i].ring[next%ssspRing]
			frontier = append(frontier, *b...)
			*b = (*b)[:0]
		}
		cur = next
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(dist))), len(dist)), nil
}

// sliceHeaderBytes is the size of a slice header.
const sliceHeaderBytes = 24

// ssspWorker is one worker's buckets: ring[b % ssspRing] holds bucket b
// for b in [cur, cur+ssspRing); far holds the vertices beyond. err is a
// failed charge: the worker stops and the run fails with it.
type ssspWorker struct {
	r    *Run
	ring [][]uint32
	far  []uint32
	err  error
}

// relax relaxes the out-edges of the frontier vertices still in the
// current bucket (distance >= lower).
func (sw *ssspWorker) relax(g *Graph, dist []uint64, frontier []uint32, lower, delta float64, cur uint64) {
	off, end, nbr, wts := g.Out.Off, g.Out.Ends(), g.Out.Nbr, g.OutW
	for _, u := range frontier {
		if sw.err != nil {
			return
		}
		du := math.Float64frombits(atomic.LoadUint64(&dist[u]))
		if du < lower {
			continue // settled in an earlier bucket: this entry is stale
		}
		for i := off[u]; i < end[u]; i++ {
			w := 1.0
			if wts != nil {
				w = wts[i]
			}
			nd := du + w
			ndb := math.Float64bits(nd)
			v := nbr[i]
			for {
				old := atomic.LoadUint64(&dist[v])
				if ndb >= old {
					break
				}
				if atomic.CompareAndSwapUint64(&dist[v], old, ndb) {
					sw.file(v, nd, delta, cur)
					break
				}
			}
		}
	}
}

// file puts v (at distance d) into its bucket, or the far list.
func (sw *ssspWorker) file(v uint32, d, delta float64, cur uint64) {
	q := d / delta
	if q >= float64(cur+ssspRing) {
		sw.far = sw.push(sw.far, v)
		return
	}
	b := max(uint64(q), cur)
	if b >= cur+ssspRing {
		sw.far = sw.push(sw.far, v)
		return
	}
	sw.ring[b%ssspRing] = sw.push(sw.ring[b%ssspRing], v)
}

// push appends v to list, growing it through the accountant; when the
// charge fails v is dropped and sw.err set (the run fails).
func (sw *ssspWorker) push(list []uint32, v uint32) []uint32 {
	if len(list) == cap(list) {
		grown, err := growSlice(sw.r, list, 1, u32Bytes)
		if err != nil {
			if sw.err == nil {
				sw.err = err
			}
			return list
		}
		list = grown
	}
	return append(list, v)
}

// nextBucket is the smallest non-empty bucket >= cur in the rings.
func nextBucket(ws []ssspWorker, cur uint64) (uint64, bool) {
	for b := cur; b < cur+ssspRing; b++ {
		for i := range ws {
			if len(ws[i].ring[b%ssspRing]) > 0 {
				return b, true
			}
		}
	}
	return 0, false
}

// refile moves the far lists (the rings being empty) into buckets from
// the smallest distance among them on, and returns that bucket; far is
// the buffer it gathers them in, returned for reuse.
func refile(r *Run, ws []ssspWorker, far []uint32, dist []uint64, delta float64, cur uint64) ([]uint32, uint64, bool, error) {
	total := 0
	for i := range ws {
		total += len(ws[i].far)
	}
	if total == 0 {
		return far, 0, false, nil
	}
	far, err := growSlice(r, far[:0], total, u32Bytes)
	if err != nil {
		return far, 0, false, err
	}
	for i := range ws {
		far = append(far, ws[i].far...)
		ws[i].far = ws[i].far[:0]
	}
	lo := math.Inf(1)
	err = r.Blocks(len(far), func(i, j int) error {
		m := lo // a local: the captured lo would be stored every element
		for _, v := range far[i:j] {
			m = min(m, math.Float64frombits(dist[v]))
		}
		lo = m
		return nil
	})
	if err != nil {
		return far, 0, false, err
	}
	start := max(cur, uint64(lo/delta))
	err = r.Blocks(len(far), func(i, j int) error {
		for _, v := range far[i:j] {
			ws[0].file(v, math.Float64frombits(dist[v]), delta, start)
		}
		return ws[0].err
	})
	if err != nil {
		return far, 0, false, err
	}
	next, ok := nextBucket(ws, start)
	return far, next, ok, nil
}

// weightSum is the sum of all edge weights, computed once per graph
// (Graph.wsum; a patch in place carries it over, adjusted by the lists
// it rereads). Over blocks of sumBlock slots on the workers, each in
// four partial sums, and the blocks' sums added in block order, so that
// it does not depend on the workers. The one chain of additions it was,
// on every call, took 19 ms of a cached call at scale 20 (33.5M slots,
// CPU profile of BenchmarkKronCalls/sssp), four times that at scale 22.
func weightSum(r *Run, g *Graph) (float64, error) {
	if g.OutW == nil {
		return float64(g.Out.Edges()), nil
	}
	if s := g.wsum.Load(); s != nil {
		return *s, nil
	}
	// After a patch in place OutW's unused slots weigh 0
	// (csrInPlace): the sum over all of it is the lists'.
	ws := g.OutW
	parts := make([]float64, (len(ws)+sumBlock-1)/sumBlock)
	err := r.parallelFor(len(parts), 1, func(_, lo, hi int) error {
		for b := lo; b < hi; b++ {
			parts[b] = sum4(ws[b*sumBlock : min(len(ws), (b+1)*sumBlock)])
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	s := 0.0
	for _, p := range parts {
		s += p
	}
	g.wsum.Store(&s)
	return s, nil
}

// sumBlock is the number of slots weightSum adds per task.
const sumBlock = 1 << 16

// sum4 adds ws in four interleaved partial sums (four chains of
// additions in flight instead of one).
func sum4(ws []float64) float64 {
	var a, b, c, d float64
	i := 0
	for ; i+4 <= len(ws); i += 4 {
		a += ws[i]
		b += ws[i+1]
		c += ws[i+2]
		d += ws[i+3]
	}
	for ; i < len(ws); i++ {
		a += ws[i]
	}
	return (a + b) + (c + d)
}

// defaultDelta is the bucket width when none is given (sum is
// weightSum's): a quarter of the mean weight over the mean out-degree
// (the degree at least 1), Meyer and Sanders' Θ(1/d) for weights scaled
// to [0, 1]. BenchmarkSSSP (Kronecker, weights 1..255, mean degree 32, 2
// workers): at scale 18, delta 128 (the mean weight, the first default)
// 204 ms, 32 150 ms, 8 130 ms, 4 95–110 ms, 1 79–90 ms; at scale 22 in
// the hub order, 4 (mean/degree, the second default) 2.67–3.07 s, 2
// 2.46–3.32 s, 1 1.98–2.32 s (in another run 2.00–2.57 s beside 0.5 at
// 2.04–2.53 s; 4 runs each). Narrower
// buckets mean more rounds, each a parallel pass with a fixed cost, and
// the time is flat below a quarter of mean/degree.
func defaultDelta(g *Graph, sum float64) float64 {
	d := meanWeight(g, sum) / 4
	if g.N > 0 {
		if deg := float64(g.Out.Edges()) / float64(g.N); deg > 1 {
			d /= deg
		}
	}
	return d
}

// meanWeight is the mean edge weight (sum is weightSum's), 1 when there
// are none or all are 0.
func meanWeight(g *Graph, sum float64) float64 {
	if len(g.OutW) == 0 || g.Out.Edges() == 0 {
		return 1
	}
	if m := sum / float64(g.Out.Edges()); m > 0 && !math.IsInf(m, 0) {
		return m
	}
	return 1
}
