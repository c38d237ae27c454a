package expr

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// labelExprEval tests x:expr for a label expression other than a plain
// conjunction or disjunction (labelsEval): (A|B)&!C, %, … It works an
// operator of the expression at a time over the whole batch: the rows'
// nodes (or relationships' types) are gathered once, each name is tested
// for every row into a vector of booleans, and &, | and ! combine those
// vectors. A node is tested against its labels, a relationship against
// its type (% holds for every relationship, a name for one of that
// type); a null is null, and a name the catalog does not know holds for
// nothing.
type labelExprEval struct {
	output
	c    *Env
	x    Evaluator
	root *labelTerm

	// The batch's nodes and relationships' types with their rows.
	nodeRows []int32
	nodeIDs  []uint64
	relRows  []int32
	relTypes []catalog.TypeID
	// bufs[d] is the scratch of terms at depth d.
	bufs   [][]bool
	labels []catalog.LabelID // a node's labels, for %
}

// labelTerm is a node of the expression with its name resolved for the
// batch (a statement may create a label or type as it runs).
type labelTerm struct {
	kind  plan.LabelKind
	name  string
	args  []*labelTerm
	label catalog.LabelID
	typ   catalog.TypeID
	isL   bool // the catalog knows name as a label
	isT   bool // and as a type
}

func newLabelExprEval(c *Env, x Evaluator, e *plan.LabelExpr) *labelExprEval {
	var build func(*plan.LabelExpr) *labelTerm
	build = func(e *plan.LabelExpr) *labelTerm {
		t := &labelTerm{kind: e.Kind, name: e.Name}
		for _, a := range e.Args {
			t.args = append(t.args, build(a))
		}
		return t
	}
	return &labelExprEval{c: c, x: x, root: build(e)}
}

// resolve looks the names up in the catalog; it returns the number of
// names.
func (e *labelExprEval) resolve(t *labelTerm) int {
	n := 0
	if t.kind == plan.LabelName {
		t.label, t.isL = e.c.Catalog.LookupLabel(t.name)
		t.typ, t.isT = e.c.Catalog.LookupType(t.name)
		n++
	}
	for _, a := range t.args {
		n += e.resolve(a)
	}
	return n
}

func (e *labelExprEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, out, sel, n, done, err := labelSubject(e.c, &e.output, e.x, b)
	if done || err != nil {
		return out, err
	}
	if err := e.gather(x, sel, n, out); err != nil {
		return nil, err
	}
	e.c.Counters.DBHits += int64(b.Rows() * e.resolve(e.root))
	if len(e.nodeRows) > 0 {
		res := e.buf(0, len(e.nodeRows))
		e.nodes(e.root, 0, res)
		for i, r := range e.nodeRows {
			out.Bools[r] = res[i]
		}
	}
	if len(e.relRows) > 0 {
		res := e.buf(0, len(e.relRows))
		e.rels(e.root, 0, res)
		for i, r := range e.relRows {
			out.Bools[r] = res[i]
		}
	}
	return out, nil
}

// gather splits the batch's rows into nodes and relationships (by their
// types), setting null where x is null or a relationship is not visible.
func (e *labelExprEval) gather(x *vector.Vector, sel []int32, n int, out *vector.Vector) error {
	e.nodeRows, e.nodeIDs = e.nodeRows[:0], e.nodeIDs[:0]
	e.relRows, e.relTypes = e.relRows[:0], e.relTypes[:0]
	tx := e.c.Tx
	rel := func(r int, id uint64) {
		t, _, _, ok := tx.Rel(id)
		if !ok {
			out.SetNull(r)
			return
		}
		e.relRows, e.relTypes = append(e.relRows, int32(r)), append(e.relTypes, t)
	}
	var failed error
	vector.ForRows(sel, n, func(r int) {
		if failed != nil {
			return
		}
		if x.IsNull(r) {
			out.SetNull(r)
			return
		}
		switch x.Type {
		case vector.Node:
			e.nodeRows, e.nodeIDs = append(e.nodeRows, int32(r)), append(e.nodeIDs, x.IDs[r])
		case vector.Rel:
			rel(r, x.IDs[r])
		default:
			switch v := x.Any[r].(type) {
			case vector.NodeRef:
				if failed = e.c.CheckDeletedValue(v); failed == nil {
					e.nodeRows, e.nodeIDs = append(e.nodeRows, int32(r)), append(e.nodeIDs, uint64(v))
				}
			case vector.RelRef:
				if failed = e.c.CheckDeletedValue(v); failed == nil {
					rel(r, uint64(v))
				}
			default:
				failed = errs.Data("cannot test labels of a %s", functions.TypeName(x.Any[r]))
			}
		}
	})
	return failed
}

// buf is the scratch of depth d, of n booleans.
func (e *labelExprEval) buf(d, n int) []bool {
	for len(e.bufs) <= d {
		e.bufs = append(e.bufs, nil)
	}
	if cap(e.bufs[d]) < n {
		e.bufs[d] = make([]bool, n, max(n, vector.Capacity))
	}
	return e.bufs[d][:n]
}

// nodes evaluates t for every gathered node into res; depth d is t's.
func (e *labelExprEval) nodes(t *labelTerm, d int, res []bool) {
	tx := e.c.Tx
	switch t.kind {
	case plan.LabelName:
		if !t.isL {
			clear(res)
			return
		}
		for i, id := range e.nodeIDs {
			res[i] = tx.HasLabel(id, t.label)
		}
	case plan.LabelAny:
		for i, id := range e.nodeIDs {
			e.labels = tx.AppendNodeLabels(e.labels[:0], id)
			res[i] = len(e.labels) > 0
		}
	default:
		e.combine(t, d, res, e.nodes)
	}
}

// rels evaluates t for every gathered relationship into res.
func (e *labelExprEval) rels(t *labelTerm, d int, res []bool) {
	switch t.kind {
	case plan.LabelName:
		if !t.isT {
			clear(res)
			return
		}
		for i, typ := range e.relTypes {
			res[i] = typ == t.typ
		}
	case plan.LabelAny:
		for i := range res {
			res[i] = true
		}
	default:
		e.combine(t, d, res, e.rels)
	}
}

// combine evaluates the operator t from its operands, each evaluated by
// eval into the scratch of the next depth.
func (e *labelExprEval) combine(t *labelTerm, d int, res []bool, eval func(*labelTerm, int, []bool)) {
	eval(t.args[0], d+1, res)
	switch t.kind {
	case plan.LabelNot:
		for i := range res {
			res[i] = !res[i]
		}
		return
	}
	for _, a := range t.args[1:] {
		tmp := e.buf(d+1, len(res))
		eval(a, d+2, tmp)
		if t.kind == plan.LabelAnd {
			for i := range res {
				res[i] = res[i] && tmp[i]
			}
		} else {
			for i := range res {
				res[i] = res[i] || tmp[i]
			}
		}
	}
}
