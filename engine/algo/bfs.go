package algo

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// Unreached is the depth BFS gives a vertex it does not reach.
const Unreached = -1

// Beamer's switching parameters (GAP's defaults): go bottom-up once the
// frontier's edges exceed the unexplored edges / bfsAlpha, back top-down
// once the frontier shrinks below N / bfsBeta.
const (
	bfsAlpha = 15
	bfsBeta  = 18
)

// bfsLocal is the capacity of a worker's buffer of found vertices.
const bfsLocal = 1024

// BFS returns the hop distance of every vertex from src along Out edges
// (Unreached for the others), exploring at most maxDepth levels when
// maxDepth >= 0. Direction-optimizing (Beamer): top-down steps expand the
// frontier queue over Out; when the frontier's edges grow past a fraction
// of the unexplored edges and g.In is built, bottom-up steps let every
// unvisited vertex look for a parent in the frontier bitmap over In,
// which touches far fewer edges on the middle levels of a small-world
// graph. Both kinds of step are parallel over morsels; the depths do not
// depend on the schedule (a vertex's depth is its level, whoever claims it).
func BFS(r *Run, g *Graph, src uint32, maxDepth int) ([]int32, error) {
	depth, err := makeSlice[int32](r, g.N, u32Bytes)
	if err != nil {
		return nil, err
	}
	// Every vertex joins a queue once, so two queues of N never grow.
	queue, err := growSlice[uint32](r, nil, g.N, u32Bytes)
	if err != nil {
		return nil, err
	}
	spare, err := growSlice[uint32](r, nil, g.N, u32Bytes)
	if err != nil {
		return nil, err
	}
	if err := fill(r, depth, Unreached); err != nil {
		return nil, err
	}
	depth[src] = 0
	b := &bfs{r: r, g: g, depth: depth, queue: queue, spare: spare, locals: make([][]uint32, r.workers())}
	for w := range b.locals {
		b.locals[w] = make([]uint32, 0, bfsLocal)
	}
	if err := b.run(src, maxDepth); err != nil {
		return nil, err
	}
	return depth, nil
}

type bfs struct {
	r     *Run
	g     *Graph
	depth []int32
	queue []uint32 // the frontier, top-down (capacity N)
	spare []uint32 // the next frontier's queue (capacity N)
	// locals are the workers' buffers of found vertices, flushed to the
	// next queue when full.
	locals [][]uint32
	front  []uint64 // the frontier, bottom-up (bitmap over vertices)
	next   []uint64
	mu     sync.Mutex // guards the next queue while workers flush their finds
}

func (b *bfs) run(src uint32, maxDepth int) error {
	g := b.g
	b.queue = append(b.queue, src)
	edgesToCheck := int64(g.Out.Edges())
	scout := int64(g.Out.Degree(src))
	level := int32(0)
	for len(b.queue) > 0 && (maxDepth < 0 || int(level) < maxDepth) {
		if g.In.Off != nil && scout > edgesToCheck/bfsAlpha {
			if err := b.toBitmap(); err != nil {
				return err
			}
			awake, old := int64(len(b.queue)), int64(0)
			for awake > 0 && (awake >= old || awake > int64(g.N/bfsBeta)) && (maxDepth < 0 || int(level) < maxDepth) {
				old = awake
				if err := b.r.round("bfs", int(level)); err != nil {
					return err
				}
				var err error
				if awake, err = b.bottomUp(level + 1); err != nil {
					return err
				}
				level++
				b.front, b.next = b.next, b.front
			}
			if err := b.toQueue(); err != nil {
				return err
			}
			scout = 1 // recomputed by the next top-down step
			continue
		}
		edgesToCheck -= scout
		if err := b.r.round("bfs", int(level)); err != nil {
			return err
		}
		var err error
		if scout, err = b.topDown(level + 1); err != nil {
			return err
		}
		level++
	}
	return nil
}

// topDown expands the queue by one level and returns the out-degree sum
// of the vertices it found.
func (b *bfs) topDown(lvl int32) (int64, error) {
	g, depth := b.g, b.depth
	cur := b.queue
	next := b.spare[:0]
	var scout atomic.Int64
	off, end := g.Out.Off, g.Out.Ends()
	err := b.r.parallelFor(len(cur), 256, func(w, lo, hi int) error {
		local := b.locals[w][:0]
		flush := func() {
			b.mu.Lock()
			next = append(next, local...)
			b.mu.Unlock()
			local = local[:0]
		}
		var sc int64
		for _, u := range cur[lo:hi] {
			for _, v := range g.Out.Nbr[off[u]:end[u]] {
				if atomic.LoadInt32(&depth[v]) < 0 && atomic.CompareAndSwapInt32(&depth[v], Unreached, lvl) {
					if len(local) == cap(local) {
						flush()
					}
					local = append(local, v)
					sc += int64(end[v] - off[v])
				}
			}
		}
		flush()
		b.locals[w] = local
		scout.Add(sc)
		return nil
	})
	b.queue, b.spare = next, cur
	return scout.Load(), err
}

// bottomUp finds the parents of unvisited vertices in the frontier
// bitmap, writing the next frontier; it returns the number found. Morsels
// are whole bitmap words, so each worker writes its own words.
func (b *bfs) bottomUp(lvl int32) (int64, error) {
	g, depth, front, next := b.g, b.depth, b.front, b.next
	clear(next)
	var awake atomic.Int64
	words := len(front)
	off, end := g.In.Off, g.In.Ends()
	err := b.r.parallelFor(words, morselNodes/64, func(_, lo, hi int) error {
		var n int64
		for w := lo; w < hi; w++ {
			var bitsSet uint64
			for v := w * 64; v < min(w*64+64, g.N); v++ {
				if depth[v] >= 0 {
					continue
				}
				for _, u := range g.In.Nbr[off[v]:end[v]] {
					if front[u>>6]&(1<<(u&63)) != 0 {
						depth[v] = lvl
						bitsSet |= 1 << (v & 63)
						n++
						break
					}
				}
			}
			next[w] = bitsSet
		}
		awake.Add(n)
		return nil
	})
	return awake.Load(), err
}

// toBitmap turns the queue into the frontier bitmap.
func (b *bfs) toBitmap() error {
	words := (b.g.N + 63) / 64
	if b.front == nil {
		var err error
		if b.front, err = makeSlice[uint64](b.r, words, u64Bytes); err != nil {
			return err
		}
		if b.next, err = makeSlice[uint64](b.r, words, u64Bytes); err != nil {
			return err
		}
	}
	clear(b.front)
	q, front := b.queue, b.front
	return b.r.Blocks(len(q), func(lo, hi int) error {
		for _, v := range q[lo:hi] {
			front[v>>6] |= 1 << (v & 63)
		}
		return nil
	})
}

// toQueue turns the frontier bitmap back into the queue, in vertex order.
func (b *bfs) toQueue() error {
	b.queue = b.queue[:0]
	// Blocks of stopBlock vertices: whole words, as stopBlock is a
	// multiple of 64.
	return b.r.Blocks(b.g.N, func(lo, hi int) error {
		for w := lo / 64; w < (hi+63)/64; w++ {
			for x := b.front[w]; x != 0; x &= x - 1 {
				b.queue = append(b.queue, uint32(w*64+bits.TrailingZeros64(x)))
			}
		}
		return nil
	})
}
