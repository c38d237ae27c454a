package expr

import (
	"slices"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/vector"
)

// labelsEval tests x:L1:L2 (every label) or x:L1|L2 (one of them). A node
// is tested against its labels, a relationship against its type: r:T holds
// when r's type is T, r:T|U when it is one of them, and r:T:U never for two
// distinct types. A name the catalog does not know matches nothing.
type labelsEval struct {
	output
	c     *Env
	x     Evaluator
	names []string
	any   bool

	// The ids of names, resolved per batch (a statement may create a
	// label or type as it runs); missing is set when some name is not in
	// the catalog.
	labels        []catalog.LabelID
	types         []catalog.TypeID
	labelsMissing bool
	typesMissing  bool
}

func (e *labelsEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, out, sel, n, done, err := labelSubject(e.c, &e.output, e.x, b)
	if done || err != nil {
		return out, err
	}
	e.c.Counters.DBHits += int64(b.Rows() * len(e.names))
	e.labels, e.labelsMissing = LookupAll(e.labels[:0], e.names, e.c.Catalog.LookupLabel)
	e.types, e.typesMissing = LookupAll(e.types[:0], e.names, e.c.Catalog.LookupType)
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
			out.Bools[r] = e.node(x.IDs[r])
		case vector.Rel:
			has, ok := e.rel(x.IDs[r])
			if !ok {
				out.SetNull(r)
				return
			}
			out.Bools[r] = has
		default:
			switch v := x.Any[r].(type) {
			case vector.NodeRef:
				if failed = e.c.CheckDeletedValue(v); failed == nil {
					out.Bools[r] = e.node(uint64(v))
				}
			case vector.RelRef:
				if failed = e.c.CheckDeletedValue(v); failed != nil {
					return
				}
				has, ok := e.rel(uint64(v))
				if !ok {
					out.SetNull(r)
					return
				}
				out.Bools[r] = has
			default:
				failed = errs.Data("cannot test labels of a %s", functions.TypeName(x.Any[r]))
			}
		}
	})
	return out, failed
}

// node tests a node's labels.
func (e *labelsEval) node(id uint64) bool {
	tx := e.c.Tx
	if e.any {
		for _, l := range e.labels {
			if tx.HasLabel(id, l) {
				return true
			}
		}
		return false
	}
	if e.labelsMissing {
		return false
	}
	for _, l := range e.labels {
		if !tx.HasLabel(id, l) {
			return false
		}
	}
	return true
}

// rel tests a relationship's type; ok is false when the relationship is
// not visible.
func (e *labelsEval) rel(id uint64) (has, ok bool) {
	t, _, _, ok := e.c.Tx.Rel(id)
	if !ok {
		return false, false
	}
	if e.any {
		return slices.Contains(e.types, t), true
	}
	if e.typesMissing {
		return false, true
	}
	for _, want := range e.types {
		if want != t {
			return false, true
		}
	}
	return true, true
}

// LookupAll appends to dst the ids of the names lookup finds; missing is
// true when it does not find one.
func LookupAll[ID any](dst []ID, names []string, lookup func(string) (ID, bool)) (ids []ID, missing bool) {
	for _, name := range names {
		id, ok := lookup(name)
		if !ok {
			missing = true
			continue
		}
		dst = append(dst, id)
	}
	return dst, missing
}

// labelSubject evaluates the element a label test reads, x, and the
// test's output vector; done when x is all null (out then is too). An
// element that is not a node or relationship, or a deleted one, is an
// error.
func labelSubject(c *Env, o *output, xe Evaluator, b *vector.Batch) (x, out *vector.Vector, sel []int32, n int, done bool, err error) {
	if x, err = xe.Eval(b); err != nil {
		return nil, nil, nil, 0, false, err
	}
	sel, n = rows(b)
	out = o.vec(vector.Bool, n)
	switch x.Type {
	case vector.Null:
		vector.ForRows(sel, n, func(r int) { out.SetNull(r) })
		return x, out, sel, n, true, nil
	case vector.Node, vector.Rel, vector.Any:
	default:
		return nil, nil, nil, 0, false, errs.Data("cannot test labels of a %s", x.Type)
	}
	if err := c.CheckDeleted(x, sel, n); err != nil {
		return nil, nil, nil, 0, false, err
	}
	return x, out, sel, n, false, nil
}
