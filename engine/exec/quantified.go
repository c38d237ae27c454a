package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// quantified runs plan.QuantifiedExpand: a breadth-first search per input
// row whose paths are kept as a tree of entries (each its last node and
// relationship and the entry it extends), one level per iteration. Each
// level is emitted before the next is built, so paths come out shortest
// first and a selector only counts: SHORTEST k keeps the first k paths
// reaching an end node, SHORTEST k GROUPS the paths of the first k
// lengths reaching it, ANY k is SHORTEST k (any k paths will do).
//
// Each candidate iteration passes the path mode (checked against its
// path's nodes and relationships) and the HopTest, a whole neighbour list
// at a time, before it becomes an entry: a failing iteration is never
// extended. Under WALK a path may repeat elements forever; with a
// selector the search extends a path only when it is among the first k
// (or of the first k lengths) to reach its node with as many iterations
// still owed: any longer one could be replaced by one of those, so the
// search ends, and the binder refuses WALK with neither bound nor
// selector. Every entry is charged to the statement's memory tracker and
// the search polls cancellation.
type quantified struct {
	c   *Context
	p   *plan.QuantifiedExpand
	cur cursor

	opened    bool
	n         int         // relationships per iteration
	adjs      [][]adjList // per relationship of the group
	toLabels  []catalog.LabelID
	toMissing bool
	test      *hopTest
	firstOnly bool // extend only the first paths per state (firstOnly)

	start, into uint64
	active      bool
	entries     []qEntry
	lo, hi      int // the current level: entries[lo:hi]
	emitAt      int
	ends        map[uint64]*picked // selection per far end
	states      map[qState]*picked // WALK's extension per (node, owed)
	held        int64              // bytes charged for the row's entries
	nodes, rels []uint64           // the path of one entry
	nbrs, nrels []uint64           // candidate hops
	prefix      []uint64           // an iteration's elements before its last hop
}

// qEntry is a path of the search tree: its last node, the relationship
// that reached it and the entry of the path it extends (-1 at the start).
type qEntry struct {
	node, rel uint64
	parent    int32
	depth     int32
}

const qEntryBytes = 24

// qState is a node reached, the position in the iteration reached there
// and the hops still owed to the minimum.
type qState struct {
	node        uint64
	phase, owed int
}

// picked counts what a selector took: paths, and lengths (groups) with
// the last length seen plus one.
type picked struct{ n, groups, last int }

// take reports whether a selector of k paths (or k groups of lengths)
// takes one more path of length depth; lengths never decrease.
func (pk *picked) take(k int, groups bool, depth int) bool {
	if !groups {
		if pk.n >= k {
			return false
		}
		pk.n++
		return true
	}
	if pk.last != depth+1 {
		if pk.groups >= k {
			return false
		}
		pk.groups++
		pk.last = depth + 1
	}
	return true
}

// firstOnly reports whether the search may extend only the first k paths
// (or those of the first k lengths) to reach each node with as many hops
// owed, the others being no part of a selected path. Under WALK with ANY k
// or SHORTEST k [GROUPS] a later path to a node can be swapped for one of
// the first k. Under the other modes it holds for one path or the
// shortest group (k = 1) of a group of one directed relationship with a
// minimum of at most 1: a shortest path to a node other than the start is
// a shortest walk, which repeats no node, so it meets every mode, and its
// prefixes are shortest walks too; a shortest cycle back to the start is
// a shortest walk to a node before it and one more relationship, which,
// directed, is not in that walk. An undirected relationship could be
// walked there and back, so undirected searches enumerate every path.
func firstOnly(p *plan.QuantifiedExpand) bool {
	if p.Select != plan.SelectAny && p.Select != plan.SelectShortest {
		return false
	}
	if p.Mode == plan.ModeWalk {
		return true
	}
	return p.K == 1 && len(p.Steps) == 1 && p.Min <= 1 && p.Steps[0].Dir != plan.Both
}

func newQuantified(c *Context, p *plan.QuantifiedExpand, in Operator) (Operator, error) {
	test, err := newHopTest(c, p, len(p.Steps))
	if err != nil {
		return nil, err
	}
	return &quantified{c: c, p: p, n: len(p.Steps), test: test, firstOnly: firstOnly(p), cur: newCursor(c.pool(), in, len(p.Input.Columns()), len(p.Cols))}, nil
}

func (e *quantified) open() {
	e.opened = true
	for _, st := range e.p.Steps {
		e.adjs = append(e.adjs, openAdjs(e.c, st.Types, st.Dir))
	}
	e.toLabels, e.toMissing = resolveLabels(e.c, e.p.ToLabels)
	out, nin := e.cur.out, e.cur.nin
	for i := nin; i < len(e.p.Cols); i++ {
		out.Cols[i] = vector.New(vector.Any, vector.Capacity)
	}
	if e.p.Into < 0 {
		out.Cols[nin+1] = vector.New(vector.Node, vector.Capacity)
	}
}

func (e *quantified) Next() (*vector.Batch, error) {
	if !e.opened {
		e.open()
	}
	if err := e.c.CheckCancel(); err != nil {
		return nil, err
	}
	return e.cur.fill(e)
}

// advance starts the search of the next input row.
func (e *quantified) advance() (bool, error) {
	start, into, ok, err := e.cur.nextNodes(e.p.From, e.p.Into)
	if !ok || err != nil {
		e.reset()
		return false, err
	}
	e.reset()
	e.start, e.into = start, into
	if err := e.charge(1); err != nil {
		return false, err
	}
	e.entries = append(e.entries, qEntry{node: start, parent: -1})
	e.lo, e.hi, e.emitAt, e.active = 0, 1, 0, true
	return true, nil
}

// reset forgets the previous row's search and releases its memory.
func (e *quantified) reset() {
	e.entries = e.entries[:0]
	clear(e.ends)
	clear(e.states)
	e.c.Mem.Release(e.held)
	e.held = 0
	e.active = false
}

func (e *quantified) charge(n int) error {
	b := int64(n) * qEntryBytes
	e.held += b
	return e.c.Mem.Charge(b)
}

// produce emits the current level's paths, building the next level when
// the current one is done.
func (e *quantified) produce() error {
	for e.active && !e.cur.full() {
		if e.emitAt < e.hi {
			e.emitAt++
			e.consider(e.emitAt - 1)
			continue
		}
		if err := e.expand(); err != nil {
			return err
		}
	}
	return nil
}

// consider emits entry i's path when it is long enough, ends where the
// pattern's far end may and the selector takes it.
func (e *quantified) consider(i int) {
	ent := e.entries[i]
	d := int(ent.depth)
	if d%e.n != 0 || d < e.p.Min*e.n || e.p.Into >= 0 && ent.node != e.into {
		return
	}
	if e.toMissing || !nodeHasLabels(e.c.Tx, ent.node, e.toLabels) {
		return
	}
	if e.p.Select == plan.SelectAny || e.p.Select == plan.SelectShortest {
		if e.ends == nil {
			e.ends = map[uint64]*picked{}
		}
		pk := e.ends[ent.node]
		if pk == nil {
			pk = &picked{}
			e.ends[ent.node] = pk
		}
		if !pk.take(e.p.K, e.p.Groups, d) {
			return
		}
	}
	e.pathOf(i)
	e.emit(ent.node)
}

// pathOf loads entry i's path into e.nodes and e.rels.
func (e *quantified) pathOf(i int) {
	d := int(e.entries[i].depth)
	e.nodes, e.rels = e.nodes[:0], e.rels[:0]
	for range d + 1 {
		e.nodes = append(e.nodes, 0)
	}
	for range d {
		e.rels = append(e.rels, 0)
	}
	for j := i; j >= 0; j = int(e.entries[j].parent) {
		ent := e.entries[j]
		e.nodes[ent.depth] = ent.node
		if ent.depth > 0 {
			e.rels[ent.depth-1] = ent.rel
		}
	}
}

// emit outputs the path in e.nodes and e.rels.
func (e *quantified) emit(end uint64) {
	k, out, col := len(e.cur.idx), e.cur.out, e.cur.nin
	out.Cols[col].Set(k, functions.RelsValue(e.rels))
	col++
	if e.p.Into < 0 {
		out.Cols[col].IDs[k] = end
		col++
	}
	iters := len(e.rels) / e.n
	for _, pos := range e.p.Lists {
		l := make([]vector.Value, iters)
		for it := range l {
			if at := it*e.n + pos/2; pos%2 == 0 {
				l[it] = vector.NodeRef(e.nodes[at])
			} else {
				l[it] = vector.RelRef(e.rels[at])
			}
		}
		out.Cols[col].Set(k, l)
		col++
	}
	if e.p.PathCol {
		out.Cols[len(e.p.Cols)-1].Set(k, copyPath(e.nodes, e.rels))
	}
	e.cur.emitRow()
}

// expand builds the next level from the current one.
func (e *quantified) expand() error {
	if e.lo == e.hi || e.p.Max != plan.Unbounded && int(e.entries[e.lo].depth) >= e.p.Max*e.n || e.selected() {
		e.active = false
		return nil
	}
	next := len(e.entries)
	for i := e.lo; i < e.hi; i++ {
		if (i-e.lo)&1023 == 1023 { // a level may hold millions of paths
			if err := e.c.CheckCancel(); err != nil {
				return err
			}
		}
		if !e.extends(i) {
			continue
		}
		if err := e.extend(i); err != nil {
			return err
		}
	}
	e.lo, e.hi, e.emitAt = next, len(e.entries), next
	if e.lo == e.hi {
		e.active = false
	}
	return nil
}

// selected reports whether a search to one bound far end has all the
// paths its selector takes.
func (e *quantified) selected() bool {
	if e.p.Into < 0 || e.p.Select != plan.SelectAny && e.p.Select != plan.SelectShortest {
		return false
	}
	pk := e.ends[e.into]
	if pk == nil {
		return false
	}
	if e.p.Groups {
		return pk.groups >= e.p.K
	}
	return pk.n >= e.p.K
}

// extends reports whether entry i's path may go on: not a closed SIMPLE
// path, and, when the search prunes by state (firstOnly), among the first
// paths to reach its node with as many iterations owed.
func (e *quantified) extends(i int) bool {
	ent := e.entries[i]
	if e.p.Mode == plan.ModeSimple && ent.depth > 0 && ent.node == e.start {
		return false
	}
	if !e.firstOnly {
		return true
	}
	if e.states == nil {
		e.states = map[qState]*picked{}
	}
	d := int(ent.depth)
	key := qState{node: ent.node, phase: d % e.n, owed: max(e.p.Min*e.n-d, 0)}
	pk := e.states[key]
	if pk == nil {
		pk = &picked{}
		e.states[key] = pk
	}
	return pk.take(e.p.K, e.p.Groups, int(ent.depth))
}

// extend adds entry i's iterations that the mode, the MATCH's other
// relationships and the HopTest allow.
func (e *quantified) extend(i int) error {
	ent := e.entries[i]
	e.pathOf(i)
	phase := int(ent.depth) % e.n
	e.nbrs, e.nrels = appendAdj(e.adjs[phase], e.nbrs[:0], e.nrels[:0], ent.node)
	e.c.Counters.RowsScanned += int64(len(e.nbrs))
	w := 0
	for j, nbr := range e.nbrs {
		rel := e.nrels[j]
		if !e.modeAllows(nbr, rel) || e.reused(rel) {
			continue
		}
		e.nbrs[w], e.nrels[w] = nbr, rel
		w++
	}
	nbrs, rels := e.nbrs[:w], e.nrels[:w]
	if phase == e.n-1 { // the hop ends an iteration: test it
		d := int(ent.depth) - phase // where the iteration started
		prefix := e.prefix[:0]
		for j := d; j < int(ent.depth); j++ {
			prefix = append(prefix, e.nodes[j], e.rels[j])
		}
		e.prefix = append(prefix, ent.node)
		var err error
		e.test.in, e.test.row = e.cur.b, e.cur.row
		if nbrs, rels, err = e.test.keep(e.prefix, nbrs, rels); err != nil {
			return err
		}
	}
	if err := e.charge(len(nbrs)); err != nil {
		return err
	}
	for j, nbr := range nbrs {
		e.entries = append(e.entries, qEntry{node: nbr, rel: rels[j], parent: int32(i), depth: ent.depth + 1})
	}
	return nil
}

// modeAllows reports whether the path in e.nodes and e.rels may go on
// over rel to nbr under the path mode.
func (e *quantified) modeAllows(nbr, rel uint64) bool {
	switch e.p.Mode {
	case plan.ModeWalk:
		return true
	case plan.ModeAcyclic, plan.ModeSimple:
		for k, n := range e.nodes {
			if n == nbr && (k > 0 || e.p.Mode == plan.ModeAcyclic) {
				return false
			}
		}
		return true
	}
	for _, r := range e.rels { // a trail, written or by default
		if r == rel {
			return false
		}
	}
	return true
}

// reused reports whether rel is one of the MATCH's other relationships.
func (e *quantified) reused(rel uint64) bool {
	for _, d := range e.p.Distinct {
		if sameRel(e.cur.b.Cols[d], e.cur.row, rel) {
			return true
		}
	}
	return false
}

// hopTest evaluates plan.QuantifiedExpand's Test over batches of
// iterations that differ only in their last relationship and node: the
// columns before hold the same elements on every row.
type hopTest struct {
	ev   expr.Evaluator
	b    vector.Batch
	buf  *vector.Vector
	keep func(prefix, nbrs, rels []uint64) ([]uint64, []uint64, error)
	// outer are the input columns the test reads after the iteration's
	// elements, from row row of in.
	outer []int
	in    *vector.Batch
	row   int
}

// newHopTest compiles the test of an iteration of n relationships.
func newHopTest(c *Context, p *plan.QuantifiedExpand, n int) (*hopTest, error) {
	e := p.Test
	t := &hopTest{outer: p.Outer}
	if e == nil {
		t.keep = func(_, nbrs, rels []uint64) ([]uint64, []uint64, error) { return nbrs, rels, nil }
		return t, nil
	}
	ev, err := compile(c, e)
	if err != nil {
		return nil, err
	}
	t.ev = ev
	for i := range 2*n + 1 {
		typ := vector.Node
		if i%2 == 1 {
			typ = vector.Rel
		}
		t.b.Cols = append(t.b.Cols, vector.New(typ, vector.Capacity))
	}
	for _, c := range p.Outer {
		t.b.Cols = append(t.b.Cols, vector.New(p.Input.Columns()[c].Type, vector.Capacity))
	}
	t.keep = t.filter
	return t, nil
}

// filter keeps the hops over rels to nbrs that complete an iteration
// whose earlier elements are prefix and pass.
func (t *hopTest) filter(prefix, nbrs, rels []uint64) ([]uint64, []uint64, error) {
	w := 0
	last := len(t.b.Cols) - 1 - len(t.outer)
	for lo := 0; lo < len(nbrs); lo += vector.Capacity {
		hi := min(lo+vector.Capacity, len(nbrs))
		n := hi - lo
		t.b.Len, t.b.Sel = n, nil
		for c, id := range prefix {
			ids := t.b.Cols[c].IDs[:n]
			for i := range ids {
				ids[i] = id
			}
		}
		for j, c := range t.outer {
			dst, src := t.b.Cols[last+1+j], t.in.Cols[c]
			if dst.Type != src.Type { // a column the plan could not type
				dst = vector.New(src.Type, vector.Capacity)
				t.b.Cols[last+1+j] = dst
			}
			for i := range n {
				dst.CopyRow(i, src, t.row)
			}
		}
		copy(t.b.Cols[last-1].IDs, rels[lo:hi])
		copy(t.b.Cols[last].IDs, nbrs[lo:hi])
		p, err := t.ev.Eval(&t.b)
		if err != nil {
			return nil, nil, err
		}
		if p.Type != vector.Bool && p.Type != vector.Null {
			if p, err = expr.AsBools(p, &t.buf, nil, n, "WHERE"); err != nil {
				return nil, nil, err
			}
		}
		for i := range n {
			if p.Type == vector.Bool && !p.IsNull(i) && p.Bools[i] {
				nbrs[w], rels[w] = nbrs[lo+i], rels[lo+i]
				w++
			}
		}
	}
	return nbrs[:w], rels[:w], nil
}
