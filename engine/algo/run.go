package algo

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/progress"
)

// Run is one algorithm call's environment.
type Run struct {
	// Stop returns the statement's error once it must stop (deadline,
	// cancellation, a memory kill); nil otherwise. Algorithms call it
	// per morsel, per round and per iteration, and per block of a
	// sequential pass (Blocks). Nil never stops.
	Stop func() error
	// Mem is the statement's memory accountant; nil charges nothing.
	Mem *memory.Tracker
	// Workers is the number of goroutines parallel phases use; 0 means
	// GOMAXPROCS.
	Workers int
	// Probe, when set, is called as each round of an algorithm starts (a
	// BFS level, an SSSP bucket, a PageRank or CDLP iteration, a WCC or
	// LCC phase, every 4096 Dijkstra pops), before its stop check, with
	// the algorithm's name and the round's number from 0. Tests use it
	// to act while an algorithm runs (WithProbe).
	Probe func(algorithm string, round int)
	// Progress, when set, is told the projection's phases (project.go)
	// as Project builds the graph.
	Progress *progress.Tracker

	charged atomic.Int64
	// held are the cached graphs this run reads, each counted in its
	// users until Release.
	held []*Graph
}

// hold records that the run reads g, whose users the caller counted it
// in: Release ends it.
func (r *Run) hold(g *Graph) { r.held = append(r.held, g) }

// Probe is a test's view of an algorithm's rounds: called with the
// statement's context, the algorithm's name and the round number.
type Probe func(ctx context.Context, algorithm string, round int)

type probeKey struct{}

// WithProbe returns a context whose statements call p at every round of
// the algorithms they run (Run.Probe); for tests.
func WithProbe(ctx context.Context, p Probe) context.Context {
	return context.WithValue(ctx, probeKey{}, p)
}

// ProbeOf is the probe of WithProbe bound to ctx (the statement's, which
// derives from the caller's), nil when there is none.
func ProbeOf(ctx context.Context) func(algorithm string, round int) {
	p, _ := ctx.Value(probeKey{}).(Probe)
	if p == nil {
		return nil
	}
	return func(algorithm string, round int) { p(ctx, algorithm, round) }
}

// round calls the probe, then reports the stop error: the check at the
// start of each round of an algorithm.
func (r *Run) round(algorithm string, i int) error {
	if r.Probe != nil {
		r.Probe(algorithm, i)
	}
	return r.stop()
}

// workers is the effective worker count.
func (r *Run) workers() int {
	if r.Workers > 0 {
		return r.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// stop reports the statement's stop error.
func (r *Run) stop() error {
	if r.Stop == nil {
		return nil
	}
	return r.Stop()
}

// charge accounts n bytes before they are allocated; the error (53200)
// means the array must not be allocated.
func (r *Run) charge(n int64) error {
	if r.Mem == nil || n == 0 {
		return nil
	}
	if err := r.Mem.Charge(n); err != nil {
		r.Mem.Release(n)
		return err
	}
	r.charged.Add(n)
	return nil
}

// release gives back n bytes of a temporary the run charged and dropped.
func (r *Run) release(n int64) {
	if r.Mem == nil || n == 0 {
		return
	}
	r.charged.Add(-n)
	r.Mem.Release(n)
}

// Release gives back everything the run charged: the caller is done with
// the graph and the results.
func (r *Run) Release() {
	for _, g := range r.held {
		g.users.Add(-1)
	}
	r.held = nil
	if n := r.charged.Swap(0); n != 0 && r.Mem != nil {
		r.Mem.Release(n)
	}
}

// makeSlice charges and allocates a slice of n elements of size bytes each.
func makeSlice[T any](r *Run, n int, size int64) ([]T, error) {
	if err := r.charge(int64(n) * size); err != nil {
		return nil, err
	}
	return make([]T, n), nil
}

// growSlice makes room for extra more elements of size bytes in s,
// charging the capacity it adds before allocating it (at least doubling,
// so that appends stay amortised O(1)); the run's charge for s is then
// its capacity. s's length and contents are kept.
func growSlice[T any](r *Run, s []T, extra int, size int64) ([]T, error) {
	if len(s)+extra <= cap(s) {
		return s, nil
	}
	c := max(2*cap(s), len(s)+extra, 64)
	if err := r.charge(int64(c-cap(s)) * size); err != nil {
		return s, err
	}
	ns := make([]T, len(s), c)
	copy(ns, s)
	return ns, nil
}

// morselNodes is the node count of a morsel in node-range loops whose
// cost is not proportional to degree.
const morselNodes = 2048

// stopBlock is the element count between two stop checks in a
// sequential pass over vertices or edges (Blocks): 65536 steps of a
// simple loop take tens of microseconds, so a check per block costs
// nothing measurable and a stop waits for at most one block.
const stopBlock = 1 << 16

// Blocks calls fn over [0, n) in consecutive blocks of stopBlock
// elements, in order, checking Stop before each: the sequential passes'
// form of parallelFor's per-morsel check (prefix sums, counting sorts,
// initialising or emitting per-vertex arrays). fn's loop over its block
// stays free of per-element checks. The first error, the stop's or
// fn's, ends the pass.
func (r *Run) Blocks(n int, fn func(lo, hi int) error) error {
	for lo := 0; lo < n; lo += stopBlock {
		if err := r.stop(); err != nil {
			return err
		}
		if err := fn(lo, min(lo+stopBlock, n)); err != nil {
			return err
		}
	}
	return nil
}

// fill sets every element of s to x, checking the stop per block.
func fill[T any](r *Run, s []T, x T) error {
	return r.Blocks(len(s), func(lo, hi int) error {
		part := s[lo:hi]
		for i := range part {
			part[i] = x
		}
		return nil
	})
}

// parallelFor runs fn over [0, n) in morsels of grain elements taken from
// a shared counter by the workers; a worker checks Stop before each
// morsel. fn gets the worker index. The first error stops every worker.
func (r *Run) parallelFor(n, grain int, fn func(w, lo, hi int) error) error {
	if n <= 0 {
		return r.stop()
	}
	nw := min(r.workers(), (n+grain-1)/grain)
	var next atomic.Int64
	var failed atomic.Bool
	var errOnce sync.Once
	var first error
	body := func(w int) {
		for !failed.Load() {
			lo := int(next.Add(int64(grain))) - grain
			if lo >= n {
				return
			}
			err := r.stop()
			if err == nil {
				err = fn(w, lo, min(lo+grain, n))
			}
			if err != nil {
				errOnce.Do(func() { first = err })
				failed.Store(true)
				return
			}
		}
	}
	if nw <= 1 {
		body(0)
		return first
	}
	var wg sync.WaitGroup
	for w := 1; w < nw; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(w)
		}()
	}
	body(0)
	wg.Wait()
	return first
}

// forParts is parallelFor as a storage.ForParts: the storage's view
// builds run their parts on the run's workers, a stop check before each.
func (r *Run) forParts(n int, part func(i int)) error {
	return r.parallelFor(n, 1, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			part(i)
		}
		return nil
	})
}

// ranges cuts [0, n) into consecutive vertex ranges of about target
// edges each (by the offsets off), so that morsels over skewed degree
// distributions cost about the same; each range holds at least one
// vertex and at most maxRange. The cut depends only on the graph, never
// on the worker count, so reductions over ranges are deterministic. A
// range short of target edges is the last or maxRange vertices long, so
// there are at most 256 + n/maxRange + 1 of them: the cuts are charged
// for that many.
func ranges(r *Run, off []uint32, n int) ([]int, error) {
	edges := int(off[n])
	target := max(4096, edges/256)
	const maxRange = 1 << 14
	cuts, err := growSlice[int](r, nil, 258+n/maxRange, u64Bytes)
	if err != nil {
		return nil, err
	}
	cuts = append(cuts, 0)
	lo := 0
	for lo < n {
		hi := lo + 1
		// Double the range until it holds target edges.
		for hi < n && hi-lo < maxRange && int(off[hi]-off[lo]) < target {
			hi = min(n, lo+2*(hi-lo), lo+maxRange)
		}
		cuts = append(cuts, hi)
		lo = hi
	}
	return cuts, nil
}

// ranges is the package function's cut of c's n vertices. Once a patch
// in place moved lists (c.End), the offsets no longer add up to edge
// counts, and the cut accumulates degrees in one sequential pass
// instead (O(n), beside a kernel's O(edges)).
func (c *CSR) ranges(r *Run, n int) ([]int, error) {
	if c.End == nil {
		return ranges(r, c.Off, n)
	}
	if c.cuts != nil {
		return c.cuts, nil
	}
	target := max(4096, c.edges/256)
	const maxRange = 1 << 14
	cuts, err := growSlice[int](r, nil, 258+n/maxRange, u64Bytes)
	if err != nil {
		return nil, err
	}
	cuts = append(cuts, 0)
	off, end := c.Off, c.End
	lo, sum := 0, 0
	for v := 0; v < n; v++ {
		sum += int(end[v] - off[v])
		if sum >= target || v+1-lo >= maxRange {
			cuts = append(cuts, v+1)
			lo, sum = v+1, 0
		}
	}
	if lo < n {
		cuts = append(cuts, n)
	}
	return cuts, nil
}

// overRanges runs fn over the ranges cuts (from ranges) in parallel.
func (r *Run) overRanges(cuts []int, fn func(w, part, lo, hi int) error) error {
	return r.parallelFor(len(cuts)-1, 1, func(w, p, _ int) error {
		return fn(w, p, cuts[p], cuts[p+1])
	})
}

// Charge accounts n bytes the caller is about to allocate beside the
// algorithm's arrays (Release gives them back with the rest).
func (r *Run) Charge(n int64) error { return r.charge(n) }

// Uncharge gives back n bytes of a Charge early, once the caller dropped
// what they paid for.
func (r *Run) Uncharge(n int64) { r.release(n) }

// MakeCharged charges and allocates a slice of n elements of size bytes
// each, for callers that build result arrays beside an algorithm's.
func MakeCharged[T any](r *Run, n int, size int64) ([]T, error) { return makeSlice[T](r, n, size) }
