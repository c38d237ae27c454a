package exec

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// A range filter right above an expansion (`(b)<-[k]-(a) WHERE k.since >
// 2015 AND b.age < 25`) is pushed into it. Terms on an input column (b,
// the node expanded from) select the input rows worth expanding, so a
// selective one saves the CSR reads of every other row. Terms on the new
// relationship and far node filter each neighbour list before any row is
// emitted: a list that one CSR base holds unchanged is tested on its slot
// range of the relationship property's slot-ordered view (sequential in
// either direction), its neighbours are decoded only if some entry passed
// and its relationship ids copied only for the entries that pass every
// term (loadBase); other lists are read as usual and filtered through the
// id-ordered views (apply). Rows that fail are never copied into a batch,
// and the input columns are gathered only for the rows that pass.
//
// The expansion's input batches are prepared one at a time: when every
// term has a view (and nothing was deleted earlier in the statement), the
// lists of that batch are filtered and its output passes as is;
// otherwise its rows are emitted unfiltered and the general filter runs
// over them. Either way the rows are the ones the Filter would keep, and
// the rows scanned are counted alike (a skipped input row counts its
// list).

// listFilter is the range terms an expand applies to its neighbour lists,
// and those it applies to its input rows (terms on an input column, such
// as the start node's own properties: a row that fails is not expanded).
type listFilter struct {
	p     *plan.Expand // for PROFILE's notes
	terms []rangeTerm
	rel   []bool // per term: reads the relationship (else the far node)
	views []*storage.IntView
	// slots holds, per relationship term, its view in the slot order of
	// base (the one CSR the expansion reads, nil when it reads several):
	// a list base holds unchanged is then a contiguous range of it.
	base   *storage.AdjacencyBase
	off    []uint64 // base's offsets
	slots  []*storage.IntView
	in     []rangeTerm
	inView []*storage.IntView
	pass   []bool // per physical input row: passes the input terms
	ready  bool   // the lists of the current input batch are filtered
	demand int64  // list entries read since the last prepare
	scr    vector.Vector
	sel    [2][]int32
}

// expandFilterOp is the Filter over an expand with a listFilter.
type expandFilterOp struct {
	e   *expand
	in  Operator // e, inside its PROFILE shell when profiling
	gen *filterOp
}

// buildExpandFilter builds Filter p over Expand ex as one operator, for
// an Expand the physical pass chose range-expand for (every range term
// of p reads ex's input columns, relationship or far node); ok is false
// when a bound is a parameter whose value is not an integer.
func buildExpandFilter(c *Context, p *plan.Filter, ex *plan.Expand) (Operator, bool, error) {
	terms, ok := rangeTerms(c, p.Pred, ex, plan.StrategyRangeExpand)
	if !ok {
		return nil, false, nil
	}
	nin := len(ex.Input.Columns())
	lf := &listFilter{p: ex}
	for _, t := range terms {
		switch {
		case t.col < nin:
			lf.in = append(lf.in, t)
		case t.col == nin:
			lf.terms, lf.rel = append(lf.terms, t), append(lf.rel, true)
		default: // nin+1, the far node (the pass saw that it is new)
			lf.terms, lf.rel = append(lf.terms, t), append(lf.rel, false)
		}
	}
	lf.views, lf.inView = make([]*storage.IntView, len(lf.terms)), make([]*storage.IntView, len(lf.in))
	lf.slots = make([]*storage.IntView, len(lf.terms))
	in, err := Build(c, ex.Input)
	if err != nil {
		return nil, true, err
	}
	e := newExpand(c, ex, in)
	e.pre = lf
	pred, err := compile(c, p.Pred)
	if err != nil {
		return nil, true, err
	}
	exOp := c.profile(ex, e)
	return &expandFilterOp{e: e, in: exOp, gen: &filterOp{c: c, in: exOp, pred: pred}}, true, nil
}

func (f *expandFilterOp) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		if f.e.pre.ready {
			return b, nil
		}
		if b, err = f.gen.filter(b); err != nil || b != nil {
			return b, err
		}
	}
}

// prepare decides, for a new input batch b, whether its lists are
// filtered, and if so which of its rows pass the input terms.
func (lf *listFilter) prepare(c *Context, b *vector.Batch) {
	lf.ready = false
	demand := int(lf.demand)
	lf.demand = 0
	if c.Deleted.HasNodes() || c.Deleted.HasRels() {
		c.fellBack(lf.p, plan.StrategyRangeExpand, "the statement deleted entities")
		return
	}
	for i, t := range lf.terms {
		if lf.views[i] = termView(c, t, lf.rel[i], demand); lf.views[i] == nil {
			c.fellBack(lf.p, plan.StrategyRangeExpand, noView)
			return
		}
		lf.slots[i] = nil
		if lf.rel[i] && lf.base != nil {
			k, _ := c.Catalog.LookupKey(t.key)
			lf.slots[i] = c.Tx.RelSlotView(k, lf.base, demand)
		}
	}
	for i, t := range lf.in {
		switch b.Cols[t.col].Type {
		case vector.Node:
			lf.inView[i] = termView(c, t, false, b.Rows())
		case vector.Rel:
			lf.inView[i] = termView(c, t, true, b.Rows())
		default:
			c.fellBack(lf.p, plan.StrategyRangeExpand, "an input column of other values than nodes or relationships")
			return
		}
		if lf.inView[i] == nil {
			c.fellBack(lf.p, plan.StrategyRangeExpand, noView)
			return
		}
	}
	lf.ready = true
	if len(lf.in) == 0 {
		return
	}
	if lf.pass == nil {
		lf.pass = make([]bool, vector.Capacity)
		for i := range lf.sel {
			lf.sel[i] = make([]int32, 0, vector.Capacity)
		}
	}
	sel, n := rows(b)
	for i, t := range lf.in {
		c.Counters.DBHits += int64(b.Rows())
		sel = lf.inView[i].SelectRange(lf.sel[i&1][:0], b.Cols[t.col], sel, n, t.lo, t.hi)
		if len(sel) == 0 {
			break
		}
	}
	clear(lf.pass[:n])
	for _, r := range sel {
		lf.pass[r] = true
	}
}

// termView is the view a term reads: of a relationship or node property.
func termView(c *Context, t rangeTerm, rel bool, demand int) *storage.IntView {
	k, ok := c.Catalog.LookupKey(t.key)
	if !ok {
		return nil
	}
	if rel {
		return c.Tx.RelIntView(k, demand)
	}
	return c.Tx.NodeIntView(k, demand)
}

// skip reports whether physical input row r fails the input terms.
func (lf *listFilter) skip(r int) bool {
	return lf.ready && lf.pass != nil && len(lf.in) > 0 && !lf.pass[r]
}

// apply keeps the entries of a neighbour list (nbrs[i] reached by
// rels[i]) that pass every term, compacting both in place: the path for
// lists not read straight from one CSR base (see loadBase).
func (lf *listFilter) apply(c *Context, nbrs, rels []uint64) ([]uint64, []uint64) {
	n := len(nbrs)
	lf.demand += int64(n)
	if !lf.ready || n == 0 || len(lf.terms) == 0 {
		return nbrs, rels
	}
	lf.grow(n)
	c.Counters.DBHits += int64(n * len(lf.terms))
	var sel []int32
	for i, t := range lf.terms {
		lf.scr.Type, lf.scr.Valid = vector.Node, nil
		if lf.rel[i] {
			lf.scr.IDs = rels
		} else {
			lf.scr.IDs = nbrs
		}
		sel = lf.views[i].SelectRange(lf.sel[i&1][:0], &lf.scr, sel, n, t.lo, t.hi)
		if len(sel) == 0 {
			break
		}
	}
	lf.scr.IDs = nil
	for j, r := range sel {
		nbrs[j], rels[j] = nbrs[r], rels[r]
	}
	return nbrs[:len(sel)], rels[:len(sel)]
}

// grow makes the selection buffers hold a list of n entries.
func (lf *listFilter) grow(n int) {
	for i := range lf.sel {
		if cap(lf.sel[i]) < n {
			lf.sel[i] = make([]int32, 0, max(n, vector.Capacity))
		}
	}
}

// loadBase reads node's list straight from lf.base, which holds it
// unchanged, filtering before it copies: the relationship terms test the
// list's slot range of their slot-ordered views first, the neighbours are
// decoded only when some entry passed, and the relationship ids are
// copied only for the entries that pass every term. total is the list's
// length before filtering, or -1 when a relationship term has no slot
// view (the caller then reads and filters the list as usual).
func (lf *listFilter) loadBase(c *Context, node uint64, nbrs, rels []uint64) (total int, _, _ []uint64) {
	if !lf.ready || len(lf.terms) == 0 {
		return -1, nbrs, rels
	}
	for i := range lf.terms {
		if lf.rel[i] && lf.slots[i] == nil {
			return -1, nbrs, rels
		}
	}
	from := lf.off[node]
	n := int(lf.off[node+1] - from)
	lf.demand += int64(n)
	if n == 0 {
		return 0, nbrs, rels
	}
	lf.grow(n)
	c.Counters.DBHits += int64(n * len(lf.terms))
	var sel []int32
	k := 0
	for i, t := range lf.terms {
		if !lf.rel[i] {
			continue
		}
		sel = lf.slots[i].SelectSpan(lf.sel[k&1][:0], from, sel, n, t.lo, t.hi)
		k++
		if len(sel) == 0 {
			return n, nbrs, rels
		}
	}
	nbrs = lf.base.AppendNeighbors(nbrs, node)
	for i, t := range lf.terms {
		if lf.rel[i] {
			continue
		}
		lf.scr.Type, lf.scr.Valid, lf.scr.IDs = vector.Node, nil, nbrs
		sel = lf.views[i].SelectRange(lf.sel[k&1][:0], &lf.scr, sel, n, t.lo, t.hi)
		k++
		if len(sel) == 0 {
			lf.scr.IDs = nil
			return n, nbrs[:0], rels
		}
	}
	lf.scr.IDs = nil
	for j, r := range sel {
		nbrs[j] = nbrs[r]
		rels = append(rels, lf.base.SlotRel(from+uint64(r)))
	}
	return n, nbrs[:len(sel)], rels
}
