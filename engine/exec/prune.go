package exec

import (
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// pruner makes the element tests of a variable-length expansion
// (plan.VarLengthExpand's RelTest, NodeTest and InnerTest, moved there
// from WHERE by the path-prune rule) as a chain grows: the neighbour
// lists a search loads keep only the relationships and nodes that pass,
// and a node failing InnerTest may end a chain but not lead further. The
// tests read only their element, so one evaluation holds for every chain
// and every input row; each runs over a whole neighbour list at a time.
type pruner struct {
	rel, node, inner *elemTest
}

// newPruner compiles the element tests of a path search; nil when it has
// none.
func newPruner(c *Context, rel, node, inner plan.Expr) (*pruner, error) {
	if rel == nil && node == nil && inner == nil {
		return nil, nil
	}
	pr := &pruner{}
	var err error
	if pr.rel, err = newElemTest(c, rel, vector.Rel); err != nil {
		return nil, err
	}
	if pr.node, err = newElemTest(c, node, vector.Node); err != nil {
		return nil, err
	}
	if pr.inner, err = newElemTest(c, inner, vector.Node); err != nil {
		return nil, err
	}
	return pr, nil
}

// start reports whether a chain may start at node: it passes NodeTest.
func (pr *pruner) start(node uint64) (bool, error) {
	if pr == nil || pr.node == nil {
		return true, nil
	}
	return pr.node.one(node)
}

// through reports whether a chain may go on from node, which is not its
// start: it passes InnerTest.
func (pr *pruner) through(node uint64) (bool, error) {
	if pr == nil || pr.inner == nil {
		return true, nil
	}
	return pr.inner.one(node)
}

// relPasses reports whether relationship rel passes RelTest.
func (pr *pruner) relPasses(rel uint64) (bool, error) {
	if pr.rel == nil {
		return true, nil
	}
	return pr.rel.one(rel)
}

// keep narrows the neighbours nbrs[from:] and their relationships to
// those passing RelTest and NodeTest.
func (pr *pruner) keep(nbrs, rels []uint64, from int) ([]uint64, []uint64, error) {
	if pr == nil {
		return nbrs, rels, nil
	}
	var err error
	if pr.rel != nil {
		if rels, nbrs, err = pr.rel.filter(rels, nbrs, from); err != nil {
			return nil, nil, err
		}
	}
	if pr.node != nil {
		if nbrs, rels, err = pr.node.filter(nbrs, rels, from); err != nil {
			return nil, nil, err
		}
	}
	return nbrs, rels, nil
}

// elemTest evaluates one test over batches of one column of element ids.
type elemTest struct {
	ev   expr.Evaluator
	b    vector.Batch
	buf  *vector.Vector // a result converted to booleans
	pass []bool
	id   [1]uint64
}

func newElemTest(c *Context, e plan.Expr, t vector.Type) (*elemTest, error) {
	if e == nil {
		return nil, nil
	}
	ev, err := compile(c, e)
	if err != nil {
		return nil, err
	}
	return &elemTest{ev: ev, b: vector.Batch{Cols: []*vector.Vector{vector.New(t, vector.Capacity)}}}, nil
}

// eval tests ids (at most vector.Capacity of them) into t.pass.
func (t *elemTest) eval(ids []uint64) error {
	t.b.Len, t.b.Sel = len(ids), nil
	col := t.b.Cols[0]
	copy(col.IDs, ids)
	p, err := t.ev.Eval(&t.b)
	if err != nil {
		return err
	}
	if p.Type != vector.Bool && p.Type != vector.Null {
		if p, err = expr.AsBools(p, &t.buf, nil, len(ids), "WHERE"); err != nil {
			return err
		}
	}
	t.pass = t.pass[:0]
	for i := range ids {
		t.pass = append(t.pass, p.Type == vector.Bool && !p.IsNull(i) && p.Bools[i])
	}
	return nil
}

// one tests a single element.
func (t *elemTest) one(id uint64) (bool, error) {
	t.id[0] = id
	if err := t.eval(t.id[:]); err != nil {
		return false, err
	}
	return t.pass[0], nil
}

// filter keeps the entries of ids[from:] that pass, and the entries of
// the parallel slice other at the same positions.
func (t *elemTest) filter(ids, other []uint64, from int) ([]uint64, []uint64, error) {
	w := from
	for lo := from; lo < len(ids); lo += vector.Capacity {
		hi := min(lo+vector.Capacity, len(ids))
		if err := t.eval(ids[lo:hi]); err != nil {
			return nil, nil, err
		}
		for i, ok := range t.pass {
			if ok {
				ids[w], other[w] = ids[lo+i], other[lo+i]
				w++
			}
		}
	}
	return ids[:w], other[:w], nil
}
