package algo

import "math"

// Paths is the result of Dijkstra: per vertex the distance (+Inf when
// unreached), the predecessor vertex and the Out slot of the edge used
// (noVertex for the source and unreached vertices), and the settled
// vertices in order of distance.
type Paths struct {
	Dist     []float64
	Pred     []uint32
	PredSlot []uint32
	Settled  []uint32
}

// Dijkstra computes shortest paths from src along Out edges weighted by
// g.OutW (1 each when nil) with a binary heap and lazy deletion. With
// targets it stops once all of them are settled. Among equal distances
// the smaller vertex settles first, so results are deterministic.
func Dijkstra(r *Run, g *Graph, src uint32, targets []uint32) (*Paths, error) {
	p := &Paths{}
	var err error
	if p.Dist, err = makeSlice[float64](r, g.N, u64Bytes); err != nil {
		return nil, err
	}
	if p.Pred, err = makeSlice[uint32](r, g.N, u32Bytes); err != nil {
		return nil, err
	}
	if p.PredSlot, err = makeSlice[uint32](r, g.N, u32Bytes); err != nil {
		return nil, err
	}
	inf := math.Inf(1)
	err = r.Blocks(g.N, func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			p.Dist[i], p.Pred[i], p.PredSlot[i] = inf, noVertex, noVertex
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var want map[uint32]bool
	if len(targets) > 0 {
		if err := r.charge(int64(len(targets)) * mapEntryBytes); err != nil {
			return nil, err
		}
		want = make(map[uint32]bool, len(targets))
		err := r.Blocks(len(targets), func(lo, hi int) error {
			for _, t := range targets[lo:hi] {
				want[t] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	done, err := makeSlice[uint64](r, (g.N+63)/64, u64Bytes)
	if err != nil {
		return nil, err
	}
	if p.Settled, err = growSlice[uint32](r, nil, g.N, u32Bytes); err != nil {
		return nil, err
	}
	// Lazy deletion leaves stale entries in the heap: it may hold one per
	// relaxed edge, so it grows through the accountant.
	items, err := growSlice[heapItem](r, nil, 1, heapItemBytes)
	if err != nil {
		return nil, err
	}
	h := distHeap(append(items, heapItem{d: 0, v: src}))
	off, end, nbr, wts := g.Out.Off, g.Out.Ends(), g.Out.Nbr, g.OutW
	p.Dist[src] = 0
	for pops := 0; len(h) > 0; pops++ {
		if pops&4095 == 0 {
			if err := r.round("dijkstra", pops>>12); err != nil {
				return nil, err
			}
		}
		it := h.pop()
		u := it.v
		if done[u>>6]&(1<<(u&63)) != 0 {
			continue
		}
		done[u>>6] |= 1 << (u & 63)
		p.Settled = append(p.Settled, u)
		if want != nil && want[u] {
			delete(want, u)
			if len(want) == 0 {
				break
			}
		}
		for i := off[u]; i < end[u]; i++ {
			w := 1.0
			if wts != nil {
				w = wts[i]
			}
			v := nbr[i]
			if nd := it.d + w; nd < p.Dist[v] {
				p.Dist[v], p.Pred[v], p.PredSlot[v] = nd, u, i
				if len(h) == cap(h) {
					if items, err = growSlice(r, []heapItem(h), 1, heapItemBytes); err != nil {
						return nil, err
					}
					h = distHeap(items)
				}
				h.push(heapItem{d: nd, v: v})
			}
		}
	}
	return p, nil
}

// Sizes the accountant charges for Dijkstra's heap entries and target
// set entries.
const (
	heapItemBytes = 16 // float64 + uint32, padded
	mapEntryBytes = 16 // key, value, and a share of the buckets
)

// PathTo appends the vertices of the path to t (source first) to verts
// and the Out slots of its edges to slots; t must be settled.
func (p *Paths) PathTo(t uint32, verts, slots []uint32) ([]uint32, []uint32) {
	from := len(verts)
	sfrom := len(slots)
	for v, steps := t, 0; ; steps++ {
		if steps > len(p.Dist) {
			panic("BUG: algo: cycle in a shortest path tree")
		}
		verts = append(verts, v)
		if p.Pred[v] == noVertex {
			break
		}
		slots = append(slots, p.PredSlot[v])
		v = p.Pred[v]
	}
	reverse(verts[from:])
	reverse(slots[sfrom:])
	return verts, slots
}

func reverse(s []uint32) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

type heapItem struct {
	d float64
	v uint32
}

func (a heapItem) less(b heapItem) bool { return a.d < b.d || a.d == b.d && a.v < b.v }

// distHeap is a binary min-heap on typed items (container/heap would
// call through an interface per comparison).
type distHeap []heapItem

func (h *distHeap) push(x heapItem) {
	*h = append(*h, x)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].less(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *distHeap) pop() heapItem {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].less(s[l]) {
			m = r
		}
		if !s[m].less(s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
