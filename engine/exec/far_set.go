package exec

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// A Filter right above an expansion whose conjuncts test only the far
// node (`(p)-[:KNOWS]->(q) WHERE q.city IN ['City000', 'City001']`)
// evaluates them once per emitted row: a random read of q's property for
// each of millions of rows, though q ranges over far fewer nodes. Once the
// rows it has filtered pass a batch's worth and an eighth of the nodes q
// can be (those of its rarest label, or every live node), those
// conjuncts are evaluated once over all those nodes, in batches through
// the usual filter kernels, into a bitset; the expansion then tests each neighbour's bit as it tests a
// label and emits only the rows that pass, and the Filter keeps only its
// other conjuncts (rule far-set).
//
// The set is the statement's: it is kept in the Context, by plan node, so
// the inner plan of an OPTIONAL MATCH, built again for each input batch,
// reuses it. It is never built, and is dropped, once the statement has
// written (a property or label may have changed). An error evaluating the
// conjuncts over a node abandons the set, since that node may be one no
// row reaches: the rows then go on through the general filter, which
// raises the error only for a row that meets it. The bitset is charged to
// the query.

// farSet is the state of one Filter's set for the statement.
type farSet struct {
	seen      int64    // rows the general filter has tested
	bits      []uint64 // the nodes passing the conjuncts; nil until built
	abandoned bool
}

// farSetRatio: the set is built once the rows filtered reach the
// candidate nodes over this, and at least farSetMinRows. A row costs a
// random property read; a candidate a sequential one in a batch kernel.
// An expansion that yields fewer rows than a batch holds is done before
// a set could serve it.
const (
	farSetRatio   = 8
	farSetMinRows = 1024
)

// farSetFilter is a Filter over an expand that may switch to a set.
type farSetFilter struct {
	c     *Context
	key   *plan.Filter
	st    *farSet
	e     *expand
	in    Operator    // e, inside its PROFILE shell when profiling
	src   *argumentOp // feeds full one batch
	full  Operator    // the whole predicate, over src
	rest  *filterOp   // the other conjuncts; nil when there are none
	far   plan.Expr   // the far conjuncts, over column 0
	cands func() *roaring.Bitmap
}

// buildFarSetFilter builds Filter p over Expand ex when some of p's
// conjuncts read only ex's far node; ok is false when none does.
func buildFarSetFilter(c *Context, p *plan.Filter, ex *plan.Expand) (Operator, bool, error) {
	if !c.Rules.On(plan.RuleFarSet) || ex.Into >= 0 {
		return nil, false, nil
	}
	farCol := len(ex.Input.Columns()) + 1
	var far, rest []plan.Expr
	for _, t := range plan.Conjuncts(p.Pred, nil) {
		if x, ok := onColumn(t, farCol); ok {
			far = append(far, x)
		} else {
			rest = append(rest, t)
		}
	}
	if len(far) == 0 {
		return nil, false, nil
	}
	in, err := Build(c, ex.Input)
	if err != nil {
		return nil, true, err
	}
	e := newExpand(c, ex, in)
	f := &farSetFilter{c: c, key: p, e: e, in: c.profile(ex, e), src: &argumentOp{done: true},
		far: andAll(far), cands: func() *roaring.Bitmap { return farCandidates(c, ex.ToLabels) }}
	if f.full, err = buildOver(c, &plan.Filter{Input: ex, Pred: p.Pred}, f.src); err != nil {
		return nil, true, err
	}
	if len(rest) > 0 {
		pred, err := compile(c, andAll(rest))
		if err != nil {
			return nil, true, err
		}
		f.rest = &filterOp{c: c, in: f.src, pred: pred}
	}
	if c.farSets == nil {
		c.farSets = map[*plan.Filter]*farSet{}
	}
	if f.st = c.farSets[p]; f.st == nil {
		f.st = &farSet{}
		c.farSets[p] = f.st
	}
	if f.st.bits != nil && !c.Tx.Writes() {
		e.farSet = f.st.bits
	}
	return f, true, nil
}

func (f *farSetFilter) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		if f.e.farSet != nil {
			// The expansion emitted only rows whose far node passes.
			if f.rest == nil {
				return b, nil
			}
			if b, err = f.rest.filter(b); err != nil || b != nil {
				return b, err
			}
			continue
		}
		f.st.seen += int64(b.Rows())
		f.src.b, f.src.done = b, false
		out, err := f.full.Next()
		if err != nil {
			return nil, err
		}
		if err := f.consider(); err != nil {
			return nil, err
		}
		if out != nil {
			return out, nil
		}
	}
}

// consider builds the set once the rows filtered have paid for it.
func (f *farSetFilter) consider() error {
	st := f.st
	if st.abandoned || st.bits != nil || f.c.Tx.Writes() {
		return nil
	}
	if st.seen < farSetMinRows {
		return nil
	}
	cands := f.cands()
	if st.seen*farSetRatio < int64(cands.GetCardinality()) {
		return nil
	}
	bits, err := f.build(cands)
	if err != nil || bits == nil {
		st.abandoned = true
		return err
	}
	st.bits, f.e.farSet = bits, bits
	return nil
}

// build evaluates the far conjuncts over the candidates. A nil set with
// no error means the evaluation failed on some node or the memory budget
// refused the set: the caller abandons it. Only cancellation is an error.
func (f *farSetFilter) build(cands *roaring.Bitmap) ([]uint64, error) {
	c := f.c
	words := int64(cands.Maximum())/64 + 1
	if cands.IsEmpty() {
		words = 0
	}
	if c.Mem.Charge(words*8) != nil {
		return nil, nil
	}
	bits := make([]uint64, words)
	src := &argumentOp{done: true}
	filter, err := buildOver(c, &plan.Filter{Pred: f.far}, src)
	if err != nil {
		return nil, nil
	}
	ids := vector.New(vector.Node, vector.Capacity)
	batch := &vector.Batch{Cols: []*vector.Vector{ids}}
	buf := make([]uint32, vector.Capacity)
	it := cands.ManyIterator()
	for {
		if err := c.CheckCancel(); err != nil {
			return nil, err
		}
		n := it.NextMany(buf)
		if n == 0 {
			return bits, nil
		}
		for i, id := range buf[:n] {
			ids.IDs[i] = uint64(id)
		}
		batch.Len, batch.Sel = n, nil
		src.b, src.done = batch, false
		out, err := filter.Next()
		if err != nil {
			return nil, nil
		}
		if out == nil {
			continue
		}
		sel, m := rows(out)
		col := out.Cols[0].IDs
		if sel == nil {
			for _, id := range col[:m] {
				bits[id>>6] |= 1 << (id & 63)
			}
			continue
		}
		for _, r := range sel {
			id := col[r]
			bits[id>>6] |= 1 << (id & 63)
		}
	}
}

// farCandidates is the set of nodes a far end with labels can be: the
// rarest label's nodes, or every live node.
func farCandidates(c *Context, labels []string) *roaring.Bitmap {
	var best *roaring.Bitmap
	for _, name := range labels {
		id, ok := c.Catalog.LookupLabel(name)
		if !ok {
			return roaring.New()
		}
		if bm := c.Tx.LabelNodes(id); best == nil || bm.GetCardinality() < best.GetCardinality() {
			best = bm
		}
	}
	if best == nil {
		return c.Tx.LiveNodes()
	}
	return best
}

// andAll joins conjuncts with AND.
func andAll(ts []plan.Expr) plan.Expr {
	x := ts[0]
	for _, t := range ts[1:] {
		x = &plan.Binary{Op: plan.OpAnd, L: x, R: t}
	}
	return x
}

// setSafeCalls are the functions a far conjunct may call: they depend on
// their arguments alone, so evaluating them once per node is evaluating
// them once per row.
var setSafeCalls = map[string]bool{
	functions.OpStartsWith: true, functions.OpEndsWith: true, functions.OpContains: true,
	functions.OpRegex: true, functions.OpIn: true,
	"tolower": true, "toupper": true, "trim": true, "ltrim": true, "rtrim": true, "size": true,
	"substring": true, "left": true, "right": true, "tostring": true, "tointeger": true,
	"tofloat": true, "toboolean": true, "abs": true, "coalesce": true, "replace": true,
}

// onColumn returns t with its references to column col made references
// to column 0, when t reads nothing but col's properties and labels,
// constants and parameters through operators and set-safe functions.
func onColumn(t plan.Expr, col int) (plan.Expr, bool) {
	uses := false
	var walk func(plan.Expr) (plan.Expr, bool)
	walk = func(e plan.Expr) (plan.Expr, bool) {
		switch x := e.(type) {
		case *plan.Const, *plan.Param:
			return e, true
		case *plan.ColRef:
			if x.Idx != col || x.T != vector.Node {
				return nil, false
			}
			uses = true
			y := *x
			y.Idx = 0
			return &y, true
		case *plan.Property:
			y := *x
			var ok bool
			y.Of, ok = walk(x.Of)
			return &y, ok
		case *plan.HasLabels:
			y := *x
			var ok bool
			y.X, ok = walk(x.X)
			return &y, ok
		case *plan.Binary:
			y := *x
			var ok1, ok2 bool
			y.L, ok1 = walk(x.L)
			y.R, ok2 = walk(x.R)
			return &y, ok1 && ok2
		case *plan.Not:
			y, ok := walk(x.X)
			return &plan.Not{X: y}, ok
		case *plan.Neg:
			y, ok := walk(x.X)
			return &plan.Neg{X: y}, ok
		case *plan.IsNull:
			y := *x
			var ok bool
			y.X, ok = walk(x.X)
			return &y, ok
		case *plan.List:
			elems, ok := walkAll(x.Elems, walk)
			return &plan.List{Elems: elems}, ok
		case *plan.Call:
			if !setSafeCalls[x.Name] {
				return nil, false
			}
			y := *x
			var ok bool
			y.Args, ok = walkAll(x.Args, walk)
			return &y, ok
		}
		return nil, false
	}
	out, ok := walk(t)
	return out, ok && uses
}

// walkAll maps walk over es; false when it fails on any.
func walkAll(es []plan.Expr, walk func(plan.Expr) (plan.Expr, bool)) ([]plan.Expr, bool) {
	out := make([]plan.Expr, len(es))
	for i, e := range es {
		y, ok := walk(e)
		if !ok {
			return nil, false
		}
		out[i] = y
	}
	return out, true
}
