package exec

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/physical"
	"github.com/quiverdb/quiver/vector"
)

// Morsel-driven parallelism. A pipeline that starts with a NodeScan (or a
// LabelScan) and
// goes on with operators that map rows one by one (plan.Streams: Filter,
// Project, Expand, VarLengthExpand, ExpandIntersect) can run on several
// workers: the scan's node ids
// are cut into morsels, ranges of ids sized by the edges the pipeline's
// first expansion will follow (a node with a thousand relationships is a
// morsel of its own, a thousand leaves share one), and each worker takes
// the next morsel from an atomic counter until none is left. Every worker
// builds its own operators over its own Context (operators are not safe
// for concurrent use) and reads the query's Tx, which several goroutines
// may read at once while nothing writes: plans with writes never run in
// parallel (the engine sets Parallelism to 1 for them).
//
// Two shapes run on workers:
//   - a pipeline feeding anything else (gatherOp): the workers' batches
//     reach the consumer in whatever order they come, which is fine since
//     row order is unspecified without ORDER BY;
//   - a pipeline feeding a hash Aggregate (parallelAgg): each worker
//     aggregates its rows into partial groups, merged when all are done.
//
// Counters stay exact: a worker counts into its own Context, added into
// the query's on the query's goroutine when the worker is done (PROFILE
// entries likewise, summed per operator). Memory is charged to the
// query's tracker directly, with atomic adds. Cancellation and timeouts
// reach the workers through their context; Close stops every worker of
// the query and waits for it before the summary is read.

// parKind is how a marked plan operator runs in parallel.
type parKind uint8

const (
	parGather parKind = iota + 1
	parAggregate
)

// parState is the parallel runs of one query, used on the query's
// goroutine only.
type parState struct {
	runs []*parRun
}

// workerState is what a worker's Context knows of its pipeline.
type workerState struct {
	scan plan.Operator // a NodeScan or a LabelScan
	src  *morselSource
	// fill is the rows a gather's worker holds back to hand over
	// several sparse batches as one (gather_fill.go), nil for none.
	fill *batchFill
}

// morselWeight is the target size of a morsel: nodes plus the
// relationships the first expansion follows from them.
const morselWeight = 8 * vector.Capacity

// minScanMorsels is the fewest morsels a pipeline without an expansion
// (a scan under filters and projections) must have to run on workers.
// Its rows cost a few nanoseconds each, so below that a second worker's
// start and hand-offs cost more than the work it takes over. Measured
// with BenchmarkParallelThreshold (2 cores shared with other builds,
// load 7–10; medians of 5): a filtered sum over 16k nodes took 184 µs
// on two workers against 71 µs on one, 229 against 112 µs at 32k, 284
// against 403 µs at 64k (one worker's runs spread 219–547 µs); the same
// filter returning its rows lost at 64k too (185 against 101 µs) and
// tied at 256k. With an expansion a node weighs its relationships, and a
// pipeline of three morsels already gained (24k of weight: 1.0–1.5 ms on
// two workers against 1.7–2.9 ms on one).
const minScanMorsels = 8

// parKindOf is how p runs on workers: the physical-planning pass chose
// the parallel strategy for it (engine/plan/physical). An Aggregate
// merges its workers' partial groups: every aggregate of the function
// catalog merges.
func parKindOf(p plan.Operator) parKind {
	if !plan.Chose(p, plan.StrategyParallel) {
		return 0
	}
	switch p.(type) {
	case *plan.Aggregate:
		return parAggregate
	case *plan.Distinct: // runs its workers itself (code_distinct.go)
		return 0
	case *plan.HashJoin: // probes on workers itself (hashjoin_parallel.go)
		return 0
	}
	return parGather
}

// buildParallel builds p on workers when the physical-planning pass chose
// that for it and the guards that see the query hold: the query may use
// several workers (it does not write) and the scan has more than one
// morsel. PROFILE notes a guard that kept the pipeline serial.
func buildParallel(c *Context, p plan.Operator) (Operator, bool, error) {
	kind := parKindOf(p)
	if kind == 0 || c.worker != nil {
		return nil, false, nil
	}
	if c.Parallelism <= 1 {
		c.fellBack(p, plan.StrategyParallel, "one worker allowed")
		return nil, false, nil
	}
	input := p
	if kind == parAggregate {
		input = p.(*plan.Aggregate).Input
	}
	run, err := newParRun(c, p, input)
	if err != nil || run == nil {
		return nil, err != nil, err
	}
	if kind == parAggregate {
		a, err := newParallelAgg(c, p.(*plan.Aggregate), run)
		if err != nil {
			return nil, true, err
		}
		return c.profile(p, a), true, nil
	}
	return &gatherOp{run: run, p: p, held: -1}, true, nil
}

// newParRun returns the workers of the pipeline input, which the
// parallel operator p runs, nil (noted in PROFILE) when the scan is too
// short to share.
func newParRun(c *Context, p, input plan.Operator) (*parRun, error) {
	if c.par == nil {
		c.par = &parState{}
	}
	scan := physical.ChainScan(input)
	src, err := newMorselSource(c, scan, input)
	if err != nil {
		return nil, err
	}
	if src.expected <= morselWeight {
		c.fellBack(p, plan.StrategyParallel, "one morsel")
		return nil, nil // about one morsel: nothing to share
	}
	if len(src.adjs) == 0 && src.expected < minScanMorsels*morselWeight {
		c.fellBack(p, plan.StrategyParallel, "a short scan")
		return nil, nil
	}
	workers := min(int64(c.Parallelism), (src.expected+morselWeight-1)/morselWeight)
	// The statement clock is read once for every worker.
	c.Now()
	run := &parRun{c: c, n: int(workers), top: p, scan: scan, src: src}
	c.par.runs = append(c.par.runs, run)
	return run, nil
}

// firstExpansion is the expansion of the pipeline that reads the scan's
// node (column 0) first, whose degrees size the morsels.
func firstExpansion(p plan.Operator) (types []string, dir plan.Direction, ok bool) {
	for plan.Streams(p) {
		if h, isHop := p.(plan.Hop); isHop {
			if from, ts, d := h.FirstHop(); from == 0 {
				types, dir, ok = ts, d, true
			}
		}
		p = p.Children()[0]
	}
	return types, dir, ok
}

// morselSource hands out the morsels of one scan, cut as they are taken:
// no pass over the ids comes before the first rows (a LIMIT may need only
// a few), and the lock is held for one morsel's ids and degrees.
type morselSource struct {
	mu      sync.Mutex
	it      roaring.ManyIntIterable
	adjs    []adjList
	buf     []uint32
	pending []uint32 // ids read from it, not yet handed out
	// consecutive is set when the ids are one range and no degrees weigh
	// them (a bulk-loaded label scanned alone): morsels are then ranges,
	// next..end the ids not yet handed out, and no id is read from it.
	consecutive bool
	next, end   uint64
	// expected is the estimated weight of the whole scan: its nodes and,
	// at the average degree, their relationships.
	expected int64
}

// newMorselSource cuts the nodes of scan, a NodeScan or a LabelScan, for
// the workers of pipeline.
func newMorselSource(c *Context, scan plan.Operator, pipeline plan.Operator) (*morselSource, error) {
	var bm *roaring.Bitmap
	switch s := scan.(type) {
	case *plan.NodeScan:
		bm = scanBitmap(c, s)
	case *plan.LabelScan:
		var err error
		if bm, err = labelExprBitmap(c, s.Expr); err != nil {
			return nil, err
		}
	default:
		panic(fmt.Sprintf("BUG: a parallel pipeline over %T", scan))
	}
	m := &morselSource{it: bm.ManyIterator(), buf: make([]uint32, vector.Capacity)}
	nodes := int64(bm.GetCardinality())
	m.expected = nodes
	if types, dir, ok := firstExpansion(pipeline); ok {
		m.adjs = openAdjs(c, types, dir)
		var edges int64
		for _, a := range m.adjs {
			edges += int64(a.adj.NumEdges())
		}
		if live := c.Tx.NodeCount(); live > 0 {
			m.expected += nodes * edges / live
		}
	}
	if lo, hi, ok := idRange(bm); ok && m.adjs == nil {
		m.consecutive, m.next, m.end = true, lo, hi
	}
	return m, nil
}

// takeRange returns the ids lo..hi-1 of the next morsel of a consecutive
// source, none (lo == hi) when all are taken.
func (m *morselSource) takeRange() (lo, hi uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	lo = m.next
	m.next = min(m.end, lo+morselWeight)
	return lo, m.next
}

// take returns the ids of the next morsel in dst (reused), empty when all
// are taken.
func (m *morselSource) take(dst []uint32) []uint32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	dst = dst[:0]
	for w := 0; w < morselWeight; {
		if len(m.pending) == 0 {
			n := m.it.NextMany(m.buf)
			if n == 0 {
				break
			}
			m.pending = m.buf[:n]
		}
		if len(m.adjs) == 0 {
			k := min(len(m.pending), morselWeight-w)
			dst = append(dst, m.pending[:k]...)
			m.pending = m.pending[k:]
			w += k
			continue
		}
		if k, kw, ok := m.runWeight(morselWeight - w); ok {
			dst = append(dst, m.pending[:k]...)
			m.pending = m.pending[k:]
			w += kw
			continue
		}
		id := m.pending[0]
		m.pending = m.pending[1:]
		dst = append(dst, id)
		w++
		for _, a := range m.adjs {
			w += a.adj.Degree(uint64(id))
		}
	}
	return dst
}

// runWeight is the per-node loop of take done at once when the pending
// ids are consecutive and the one adjacency is a plain CSR (no overlay):
// the weight of the first k ids is then k plus an offset difference, so a
// binary search finds the fewest ids reaching want (all of them when they
// do not) instead of summing a million degrees under the lock. ok is
// false when the shortcut does not apply.
func (m *morselSource) runWeight(want int) (k, w int, ok bool) {
	p := m.pending
	if len(m.adjs) != 1 || m.adjs[0].adj.OverlaySize() != 0 || int(p[len(p)-1]-p[0]) != len(p)-1 {
		return 0, 0, false
	}
	base := m.adjs[0].adj.Base()
	off, nodes := base.Offsets(), uint64(base.NumNodes())
	first := uint64(p[0])
	weight := func(k int) int {
		end := min(first+uint64(k), nodes)
		start := min(first, nodes)
		return k + int(off[end]-off[start])
	}
	k = sort.Search(len(p), func(k int) bool { return weight(k+1) >= want }) + 1
	k = min(k, len(p))
	return k, weight(k), true
}

// morselScan is a worker's NodeScan: it yields the ids of the morsels it
// takes, Capacity at a time.
type morselScan struct {
	c      *Context
	src    *morselSource
	morsel []uint32 // the ids of the morsel taken last
	cur    []uint32 // those not yet yielded
	// lo..hi are those of a consecutive source's morsel.
	lo, hi uint64
	out    *vector.Batch
}

func newMorselScan(c *Context) *morselScan {
	return &morselScan{c: c, src: c.worker.src, out: vector.NewBatch(vector.Node)}
}

func (s *morselScan) Next() (*vector.Batch, error) {
	if err := s.c.CheckCancel(); err != nil {
		return nil, err
	}
	if s.src.consecutive {
		return s.nextRange()
	}
	if len(s.cur) == 0 {
		s.morsel = s.src.take(s.morsel)
		if s.cur = s.morsel; len(s.cur) == 0 {
			return nil, nil
		}
	}
	n := min(len(s.cur), vector.Capacity)
	ids := s.out.Cols[0].IDs[:n]
	for i, id := range s.cur[:n] {
		ids[i] = uint64(id)
	}
	s.cur = s.cur[n:]
	return s.yield(n), nil
}

// nextRange is Next over a consecutive source: the ids are counted out,
// not read.
func (s *morselScan) nextRange() (*vector.Batch, error) {
	if s.lo == s.hi {
		if s.lo, s.hi = s.src.takeRange(); s.lo == s.hi {
			return nil, nil
		}
	}
	n := int(min(s.hi-s.lo, vector.Capacity))
	countOut(s.out.Cols[0].IDs[:n], s.lo)
	s.lo += uint64(n)
	return s.yield(n), nil
}

// yield counts and returns the out batch of n ids.
func (s *morselScan) yield(n int) *vector.Batch {
	s.out.Len, s.out.Sel = n, nil
	s.c.Counters.RowsScanned += int64(n)
	s.c.Counters.DBHits += int64(n)
	if w := s.c.worker; w != nil && w.fill != nil && w.fill.due(s.c) && !w.fill.flush() {
		// The consumer stopped: this worker's pipeline ends here.
		return nil
	}
	return s.out
}

// parRun is one parallel pipeline's workers. Its fields other than the
// channels are used on the query's goroutine only.
type parRun struct {
	c    *Context
	n    int
	top  plan.Operator // the operator whose pipeline the workers run
	scan plan.Operator
	src  *morselSource

	started bool
	cancel  context.CancelFunc
	msgs    chan parMsg
	acks    []chan struct{}
	wg      sync.WaitGroup
	wctx    []*Context
	merged  []bool
	live    int
	stopped bool
}

// parMsg is what a worker tells the consumer: a batch (to be acknowledged
// before the worker reuses it), or that it is done, with its error or its
// partial aggregate.
type parMsg struct {
	w    int
	b    *vector.Batch
	done bool
	err  error
	agg  *hashAggregate
	// crash is a worker's panic, re-raised by the consumer.
	crash any
}

// start launches the workers; body runs on each with its own Context and
// sends its batches through emit (false: stop).
func (r *parRun) start(body func(w int, c *Context, emit func(*vector.Batch) bool) (*hashAggregate, error)) {
	r.started = true
	ctx, cancel := context.WithCancel(r.c.Ctx)
	r.cancel = cancel
	r.msgs = make(chan parMsg, r.n)
	r.live = r.n
	r.merged = make([]bool, r.n)
	for w := 0; w < r.n; w++ {
		wc := r.c.workerContext(ctx, r.scan, r.src)
		r.wctx = append(r.wctx, wc)
		ack := make(chan struct{}, 1)
		r.acks = append(r.acks, ack)
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			var agg *hashAggregate
			var err error
			var crash any
			defer func() {
				if p := recover(); p != nil {
					// Re-raised on the query's goroutine, which logs it and
					// answers an internal error, as for a serial panic.
					crash = fmt.Sprintf("%v\n\nworker stack:\n%s", p, debug.Stack())
				}
				select {
				case r.msgs <- parMsg{w: w, done: true, err: err, agg: agg, crash: crash}:
				case <-ctx.Done():
				}
			}()
			emit := func(b *vector.Batch) bool {
				select {
				case r.msgs <- parMsg{w: w, b: b}:
				case <-ctx.Done():
					return false
				}
				select {
				case <-ack:
					return true
				case <-ctx.Done():
					return false
				}
			}
			agg, err = body(w, wc, emit)
		}()
	}
}

// workerContext is a Context for one worker of c's query.
func (c *Context) workerContext(ctx context.Context, scan plan.Operator, src *morselSource) *Context {
	w := &Context{Env: expr.Env{Ctx: ctx, Tx: c.Tx, Catalog: c.Catalog, Params: c.Params,
		Clock: c.Now(), Fields: c.Fields}, Parallelism: 1, worker: &workerState{scan: scan, src: src}, bars: c.bars}
	w.Mem.Forward(&c.Mem)
	if c.Profile != nil {
		w.Profile = NewProfile()
	}
	return w
}

// receive returns the next message from the workers; ok is false once all
// of them are done. A done worker's counters are added to the query's.
func (r *parRun) receive() (m parMsg, ok bool, err error) {
	for r.live > 0 {
		select {
		case m = <-r.msgs:
		case <-r.c.Ctx.Done():
			r.stop()
			return m, false, r.c.CheckCancel()
		}
		if !m.done {
			return m, true, nil
		}
		r.live--
		r.merge(m.w)
		if m.crash != nil {
			r.stop()
			panic(m.crash)
		}
		if m.err != nil {
			r.stop()
			return m, false, m.err
		}
		if m.agg != nil {
			return m, true, nil
		}
	}
	return m, false, nil
}

// wait receives until every worker is done, for runs whose workers
// leave their results in place of their own instead of sending them.
func (r *parRun) wait() error {
	for {
		_, ok, err := r.receive()
		if err != nil || !ok {
			return err
		}
	}
}

// merge adds worker w's counters to the query's; the worker is done.
func (r *parRun) merge(w int) {
	if r.merged[w] {
		return
	}
	r.merged[w] = true
	wc, c := r.wctx[w], r.c
	c.Counters.RowsScanned += wc.Counters.RowsScanned
	c.Counters.DBHits += wc.Counters.DBHits
	if c.Profile != nil {
		for _, op := range wc.Profile.order {
			we, e := wc.Profile.ops[op], c.Profile.entry(op)
			e.Rows += we.Rows
			e.incTime += we.incTime
			e.incHits += we.incHits
			for _, note := range we.Fallbacks {
				e.addFallback(note)
			}
		}
	}
}

// stop cancels the workers, waits for them and adds their counters.
func (r *parRun) stop() {
	if !r.started || r.stopped {
		return
	}
	r.stopped = true
	r.cancel()
	r.wg.Wait()
	for w := range r.wctx {
		r.merge(w)
	}
}

// Close stops the workers of the query still running (a LIMIT satisfied,
// an error, a closed result) and waits for them, so that the counters are
// complete and nothing reads the transaction afterwards, and closes the
// procedure streams not drained. Call it on the
// query's goroutine before reading Stats or ending the transaction.
func (c *Context) Close() {
	if c.par != nil {
		for _, r := range c.par.runs {
			r.stop()
		}
	}
	for _, st := range c.streams {
		st.Close() // gives back what the stream charged
	}
	c.streams = nil
	c.Mem.Close()  // what the statement held leaves the server's budget
	c.vecs.Close() // the statement's batches end here
	c.vecs = nil
}

// gatherOp runs a pipeline on workers and passes their batches on.
type gatherOp struct {
	run  *parRun
	p    plan.Operator
	held int // the worker whose batch the consumer holds, -1 for none
	// build, when set, builds a worker's operator in place of Build of p
	// (a hash join's probe side over the shared table, hashjoin_parallel.go).
	build func(c *Context) (Operator, error)
}

func (g *gatherOp) Next() (*vector.Batch, error) {
	r := g.run
	if !r.started {
		r.start(func(w int, c *Context, emit func(*vector.Batch) bool) (*hashAggregate, error) {
			build := g.build
			if build == nil {
				build = func(c *Context) (Operator, error) { return Build(c, g.p) }
			}
			op, err := build(c)
			if err != nil {
				return nil, err
			}
			return nil, pumpFilled(c, op, emit)
		})
	}
	if g.held >= 0 {
		r.acks[g.held] <- struct{}{} // buffered: the worker may go on
		g.held = -1
	}
	if r.stopped {
		return nil, nil
	}
	m, ok, err := r.receive()
	if !ok || err != nil {
		return nil, err
	}
	g.held = m.w
	return m.b, nil
}
