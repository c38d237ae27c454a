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
// current bucket of width delta (delta <= 0 picks the mean weight);
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
	for i := range dist {
		dist[i] = infBits
	}
	dist[src] = 0
	if delta <= 0 || math.IsInf(delta, 0) || math.IsNaN(delta) {
		delta = meanWeight(g)
	}
	// No distance exceeds the sum of all weights: keeping that sum within
	// 2^40 buckets keeps bucket numbers exact integers.
	delta = max(delta, weightSum(g)/(1<<40))
	nw := r.workers()
	ws := make([]ssspWorker, nw)
	for i := range ws {
		ws[i].ring = make([][]uint32, ssspRing)
	}
	if err := r.charge(int64(g.N) * u32Bytes * 2); err != nil { // bucket entries, roughly
		return nil, err
	}
	frontier := []uint32{src}
	cur := uint64(0)
	for {
		lower := float64(cur) * delta
		err := r.parallelFor(len(frontier), 64, func(w, lo, hi int) error {
			ws[w].relax(g, dist, frontier[lo:hi], lower, delta, cur)
			return nil
		})
		if err != nil {
			return nil, err
		}
		next, ok := nextBucket(ws, cur)
		if !ok {
			if next, ok = refile(ws, dist, delta, cur); !ok {
				break
			}
		}
		frontier = frontier[:0]
		for i := range ws {
			b := &ws[i].ring[next%ssspRing]
			frontier = append(frontier, *b...)
			*b = (*b)[:0]
		}
		cur = next
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(dist))), len(dist)), nil
}

// ssspWorker is one worker's buckets: ring[b % ssspRing] holds bucket b
// for b in [cur, cur+ssspRing); far holds the vertices beyond.
type ssspWorker struct {
	ring [][]uint32
	far  []uint32
}

// relax relaxes the out-edges of the frontier vertices still in the
// current bucket (distance >= lower).
func (sw *ssspWorker) relax(g *Graph, dist []uint64, frontier []uint32, lower, delta float64, cur uint64) {
	off, nbr, wts := g.Out.Off, g.Out.Nbr, g.OutW
	for _, u := range frontier {
		du := math.Float64frombits(atomic.LoadUint64(&dist[u]))
		if du < lower {
			continue // settled in an earlier bucket: this entry is stale
		}
		for i := off[u]; i < off[u+1]; i++ {
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
		sw.far = append(sw.far, v)
		return
	}
	b := max(uint64(q), cur)
	if b >= cur+ssspRing {
		sw.far = append(sw.far, v)
		return
	}
	sw.ring[b%ssspRing] = append(sw.ring[b%ssspRing], v)
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
// the smallest distance among them on, and returns that bucket.
func refile(ws []ssspWorker, dist []uint64, delta float64, cur uint64) (uint64, bool) {
	var far []uint32
	for i := range ws {
		far = append(far, ws[i].far...)
		ws[i].far = ws[i].far[:0]
	}
	if len(far) == 0 {
		return 0, false
	}
	lo := math.Inf(1)
	for _, v := range far {
		lo = min(lo, math.Float64frombits(dist[v]))
	}
	start := max(cur, uint64(lo/delta))
	for _, v := range far {
		ws[0].file(v, math.Float64frombits(dist[v]), delta, start)
	}
	return nextBucket(ws, start)
}

// weightSum is the sum of all edge weights.
func weightSum(g *Graph) float64 {
	if g.OutW == nil {
		return float64(len(g.Out.Nbr))
	}
	s := 0.0
	for _, w := range g.OutW {
		s += w
	}
	return s
}

// meanWeight is the mean edge weight, 1 when there are none or all are 0.
func meanWeight(g *Graph) float64 {
	if len(g.OutW) == 0 {
		return 1
	}
	if m := weightSum(g) / float64(len(g.OutW)); m > 0 && !math.IsInf(m, 0) {
		return m
	}
	return 1
}
