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
// relationship and the entry it extends), one level per hop. Each level
// is emitted before the next is built, so paths come out shortest first
// and a selector only counts: SHORTEST k keeps the first k paths reaching
// an end node, SHORTEST k GROUPS the paths of the first k lengths
// reaching it, ANY k is SHORTEST k (any k paths will do).
//
// An entry also records where in the pattern its path is: which group
// (seg) and how many hops into it. A path that has done enough
// iterations of its group may leave it for the next, through the node
// pattern between them (a Mid), or end: such moves are entries of their
// own at the same level, which add no hop, so one path of the graph may
// be reached in several places of the pattern (a different match).
//
// Each candidate hop passes the path mode (checked against its path's
// nodes and relationships) and, when it ends an iteration, its group's
// test, a whole neighbour list at a time, before it becomes an entry: a
// failing iteration is never extended. Under WALK a path may repeat
// elements forever; with a selector the search extends a path only when
// it is among the first k (or of the first k lengths) to reach its node
// with as many iterations still owed (firstOnly): any longer one could be
// replaced by one of those, so the search ends, and the binder refuses
// WALK with neither bound nor selector. Every entry is charged to the
// statement's memory tracker and the search polls cancellation.
type quantified struct {
	c   *Context
	p   *plan.QuantifiedExpand
	cur cursor

	opened    bool
	adjs      [][][]adjList // per group, per relationship of an iteration
	toLabels  []catalog.LabelID
	toMissing bool
	tests     []*hopTest // per group
	mids      []*hopTest // per node pattern between groups
	firstOnly bool       // extend only the first paths per state (firstOnly)

	start, into uint64
	active      bool
	entries     []qEntry
	lo, hi      int // the current level: entries[lo:hi]
	emitAt      int
	ends        map[uint64]*picked // selection per far end
	states      map[qState]*picked // WALK's extension per state
	held        int64              // bytes charged for the row's entries
	nodes, rels []uint64           // the path of one entry
	bounds      []int              // where each group starts in it, and its end
	nbrs, nrels []uint64           // candidate hops
	prefix      []uint64           // an iteration's elements before its last hop
}

// qEntry is a path of the search tree: its last node, the relationship
// that reached it and the entry of the path it extends (-1 at the start);
// seg is the group it is in (len(Segs) once it has ended) and in the hops
// it has made there. A move (move set) passes to the next group or ends
// and adds no hop.
type qEntry struct {
	node, rel uint64
	parent    int32
	depth     int32
	in        int32
	seg       int16
	move      bool
}

const qEntryBytes = 32

// qState is a node reached, the position in the pattern reached there
// and the hops still owed to the group's minimum, or, in a bounded group
// of a pattern of several, the hops made in it (in; -1 otherwise).
type qState struct {
	node                 uint64
	seg, phase, owed, in int
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
// the first k with as much room left: in a pattern of one group any
// earlier path has made fewer hops in it, and in a pattern of several
// the state of a bounded group counts its hops exactly. Under the other
// modes it holds for one path or the
// shortest group (k = 1) of a group of one directed relationship with a
// minimum of at most 1: a shortest path to a node other than the start is
// a shortest walk, which repeats no node, so it meets every mode, and its
// prefixes are shortest walks too; a shortest cycle back to the start is
// a shortest walk to a node before it and one more relationship, which,
// directed, is not in that walk. An undirected relationship could be
// walked there and back, so undirected searches enumerate every path, as
// do the other modes over a pattern of several groups (the shortest way
// through them may pass a node twice).
func firstOnly(p *plan.QuantifiedExpand) bool {
	if p.Select != plan.SelectAny && p.Select != plan.SelectShortest {
		return false
	}
	if p.Mode == plan.ModeWalk {
		return true
	}
	if len(p.Segs) != 1 {
		return false
	}
	s := p.Segs[0]
	return p.K == 1 && len(s.Steps) == 1 && s.Min <= 1 && s.Steps[0].Dir != plan.Both
}

func newQuantified(c *Context, p *plan.QuantifiedExpand, in Operator) (Operator, error) {
	e := &quantified{c: c, p: p, firstOnly: firstOnly(p), cur: newCursor(c.pool(), in, len(p.Input.Columns()), len(p.Cols))}
	for _, s := range p.Segs {
		t, err := newHopTest(c, p, s.Test, s.Outer, 2*len(s.Steps)+1)
		if err != nil {
			return nil, err
		}
		e.tests = append(e.tests, t)
	}
	for _, m := range p.Mids {
		t, err := newHopTest(c, p, m.Test, m.Outer, 1)
		if err != nil {
			return nil, err
		}
		e.mids = append(e.mids, t)
	}
	return e, nil
}

func (e *quantified) open() {
	e.opened = true
	for _, s := range e.p.Segs {
		var adjs [][]adjList
		for _, st := range s.Steps {
			adjs = append(adjs, openAdjs(e.c, st.Types, st.Dir))
		}
		e.adjs = append(e.adjs, adjs)
	}
	e.toLabels, e.toMissing = resolveLabels(e.c, e.p.ToLabels)
	out, nin := e.cur.out, e.cur.nin
	for i := nin; i < len(e.p.Cols); i++ {
		out.Cols[i] = vector.New(e.p.Cols[i].Type, vector.Capacity)
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
	e.reset()
	if !ok || err != nil {
		return false, err
	}
	e.start, e.into = start, into
	if err := e.add(qEntry{node: start, parent: -1}); err != nil {
		return false, err
	}
	e.lo, e.emitAt, e.active = 0, 0, true
	if err := e.moves(0); err != nil {
		return false, err
	}
	e.hi = len(e.entries)
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

// add appends an entry, charging it.
func (e *quantified) add(ent qEntry) error {
	e.held += qEntryBytes
	if err := e.c.Mem.Charge(qEntryBytes); err != nil {
		return err
	}
	e.entries = append(e.entries, ent)
	return nil
}

// moves adds, for the entries from index from on (and those it adds), the
// moves out of a group whose path has done enough whole iterations: to
// the next group through the node pattern between them, or to the end.
func (e *quantified) moves(from int) error {
	for j := from; j < len(e.entries); j++ {
		ent := e.entries[j]
		if int(ent.seg) >= len(e.p.Segs) {
			continue
		}
		s := e.p.Segs[ent.seg]
		n := len(s.Steps)
		if int(ent.in)%n != 0 || int(ent.in)/n < s.Min {
			continue
		}
		if int(ent.seg) < len(e.mids) {
			t := e.mids[ent.seg]
			t.in, t.row = e.cur.b, e.cur.row
			ok, err := t.one(ent.node)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		if err := e.add(qEntry{node: ent.node, parent: int32(j), depth: ent.depth, seg: ent.seg + 1, move: true}); err != nil {
			return err
		}
	}
	return nil
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

// consider emits entry i's path when it has ended where the pattern's far
// end may and the selector takes it.
func (e *quantified) consider(i int) {
	ent := e.entries[i]
	if int(ent.seg) != len(e.p.Segs) || e.p.Into >= 0 && ent.node != e.into {
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
		if !pk.take(e.p.K, e.p.Groups, int(ent.depth)) {
			return
		}
	}
	e.pathOf(i)
	e.emit(ent.node)
}

// pathOf loads entry i's path into e.nodes and e.rels, and where each
// group starts in it into e.bounds (its last element the path's length).
func (e *quantified) pathOf(i int) {
	d := int(e.entries[i].depth)
	e.nodes, e.rels = e.nodes[:0], e.rels[:0]
	for range d + 1 {
		e.nodes = append(e.nodes, 0)
	}
	for range d {
		e.rels = append(e.rels, 0)
	}
	e.bounds = e.bounds[:0]
	for range len(e.p.Segs) + 1 {
		e.bounds = append(e.bounds, d)
	}
	e.bounds[0] = 0
	for j := i; j >= 0; j = int(e.entries[j].parent) {
		ent := e.entries[j]
		if ent.move {
			e.bounds[ent.seg] = int(ent.depth)
			continue
		}
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
	for si, s := range e.p.Segs {
		n, at := len(s.Steps), e.bounds[si]
		if s.Single {
			out.Cols[col].IDs[k] = e.rels[at]
			col++
			continue
		}
		l0 := make([]vector.Value, (e.bounds[si+1]-at)/n*len(s.Lists))
		for li, pos := range s.Lists {
			l := l0[li*len(l0)/len(s.Lists) : (li+1)*len(l0)/len(s.Lists) : (li+1)*len(l0)/len(s.Lists)]
			for it := range l {
				if j := at + it*n + pos/2; pos%2 == 0 {
					l[it] = vector.NodeRef(e.nodes[j])
				} else {
					l[it] = vector.RelRef(e.rels[j])
				}
			}
			out.Cols[col].Set(k, l)
			col++
		}
	}
	for mi, m := range e.p.Mids {
		if m.Out {
			out.Cols[col].IDs[k] = e.nodes[e.bounds[mi+1]]
			col++
		}
	}
	if e.p.PathCol {
		out.Cols[len(e.p.Cols)-1].Set(k, copyPath(e.nodes, e.rels))
	}
	e.cur.emitRow()
}

// expand builds the next level from the current one.
func (e *quantified) expand() error {
	if e.lo == e.hi || e.selected() {
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
	if err := e.moves(next); err != nil {
		return err
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

// extends reports whether entry i's path may go on: inside a group with
// an iteration to finish or room for another, not a closed SIMPLE path,
// and, when the search prunes by state (firstOnly), among the first
// paths to reach its node with as many iterations owed.
func (e *quantified) extends(i int) bool {
	ent := e.entries[i]
	if int(ent.seg) >= len(e.p.Segs) {
		return false
	}
	s := e.p.Segs[ent.seg]
	n, in := len(s.Steps), int(ent.in)
	if in%n == 0 && s.Max != plan.Unbounded && in/n >= s.Max {
		return false
	}
	if e.p.Mode == plan.ModeSimple && ent.depth > 0 && ent.node == e.start {
		return false
	}
	if !e.firstOnly {
		return true
	}
	if e.states == nil {
		e.states = map[qState]*picked{}
	}
	key := qState{node: ent.node, seg: int(ent.seg), phase: in % n, owed: max(s.Min*n-in, 0), in: -1}
	if len(e.p.Segs) > 1 && s.Max != plan.Unbounded {
		key.in = in
	}
	pk := e.states[key]
	if pk == nil {
		pk = &picked{}
		e.states[key] = pk
	}
	return pk.take(e.p.K, e.p.Groups, int(ent.depth))
}

// extend adds entry i's hops that the mode, the MATCH's other
// relationships and, at the end of an iteration, the group's test allow.
func (e *quantified) extend(i int) error {
	ent := e.entries[i]
	e.pathOf(i)
	n := len(e.p.Segs[ent.seg].Steps)
	phase := int(ent.in) % n
	e.nbrs, e.nrels = appendAdj(e.adjs[ent.seg][phase], e.nbrs[:0], e.nrels[:0], ent.node)
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
	if phase == n-1 { // the hop ends an iteration: test it
		d := int(ent.depth) - phase // where the iteration started
		prefix := e.prefix[:0]
		for j := d; j < int(ent.depth); j++ {
			prefix = append(prefix, e.nodes[j], e.rels[j])
		}
		e.prefix = append(prefix, ent.node)
		t := e.tests[ent.seg]
		t.in, t.row = e.cur.b, e.cur.row
		var err error
		if nbrs, rels, err = t.keep(e.prefix, nbrs, rels); err != nil {
			return err
		}
	}
	for j, nbr := range nbrs {
		if err := e.add(qEntry{node: nbr, rel: rels[j], parent: int32(i), depth: ent.depth + 1, in: ent.in + 1, seg: ent.seg}); err != nil {
			return err
		}
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

// newHopTest compiles a test over a row of width elements (nodes and
// relationships by turns) followed by the input columns outer.
func newHopTest(c *Context, p *plan.QuantifiedExpand, e plan.Expr, outer []int, width int) (*hopTest, error) {
	t := &hopTest{outer: outer}
	if e == nil {
		t.keep = func(_, nbrs, rels []uint64) ([]uint64, []uint64, error) { return nbrs, rels, nil }
		return t, nil
	}
	ev, err := compile(c, e)
	if err != nil {
		return nil, err
	}
	t.ev = ev
	for i := range width {
		typ := vector.Node
		if i%2 == 1 {
			typ = vector.Rel
		}
		t.b.Cols = append(t.b.Cols, vector.New(typ, vector.Capacity))
	}
	for _, c := range outer {
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
		t.fillOuter(last+1, n)
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

// fillOuter copies the current input row's outer columns into n rows of
// the test's columns from index from on.
func (t *hopTest) fillOuter(from, n int) {
	for j, c := range t.outer {
		dst, src := t.b.Cols[from+j], t.in.Cols[c]
		if dst.Type != src.Type { // a column the plan could not type
			dst = vector.New(src.Type, vector.Capacity)
			t.b.Cols[from+j] = dst
		}
		for i := range n {
			dst.CopyRow(i, src, t.row)
		}
	}
}

// one tests a single node: a Mid's test, over a row of the node and the
// outer columns.
func (t *hopTest) one(node uint64) (bool, error) {
	if t.ev == nil {
		return true, nil
	}
	t.b.Len, t.b.Sel = 1, nil
	t.b.Cols[0].IDs[0] = node
	t.fillOuter(1, 1)
	p, err := t.ev.Eval(&t.b)
	if err != nil {
		return false, err
	}
	if p.Type != vector.Bool && p.Type != vector.Null {
		if p, err = expr.AsBools(p, &t.buf, nil, 1, "WHERE"); err != nil {
			return false, err
		}
	}
	return p.Type == vector.Bool && !p.IsNull(0) && p.Bools[0], nil
}
