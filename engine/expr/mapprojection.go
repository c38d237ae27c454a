package expr

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// mapProjEval builds x{.a, k: e, .*} per row. The item values are
// evaluated column-wise (a .key item is a property gather); the maps are
// assembled per row.
type mapProjEval struct {
	c     *Env
	x     Evaluator
	items []plan.MapProjItem
	vals  []Evaluator // nil for .*
	vecs  []*vector.Vector
	out   *vector.Vector
}

func compileMapProjection(c *Env, e *plan.MapProjection) (Evaluator, error) {
	x, err := Compile(c, e.X)
	if err != nil {
		return nil, err
	}
	ev := &mapProjEval{c: c, x: x, items: e.Items, vals: make([]Evaluator, len(e.Items)), vecs: make([]*vector.Vector, len(e.Items))}
	for i, it := range e.Items {
		if it.All {
			continue
		}
		if ev.vals[i], err = Compile(c, it.Val); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

func (e *mapProjEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	xv, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	for i, v := range e.vals {
		if v == nil {
			continue
		}
		if e.vecs[i], err = v.Eval(b); err != nil {
			return nil, err
		}
	}
	e.out = vector.Reuse(e.out, vector.Any)
	out := e.out
	sel, n := rows(b)
	var failed error
	vector.ForRows(sel, n, func(r int) {
		x := xv.Get(r)
		if x == nil {
			out.SetNull(r)
			return
		}
		m := map[string]vector.Value{}
		for i, it := range e.items {
			if !it.All {
				m[it.Key] = e.vecs[i].Get(r)
				continue
			}
			if err := e.allProps(x, m); err != nil && failed == nil {
				failed = err
			}
		}
		out.Set(r, m)
	})
	return out, failed
}

// allProps adds every property of a node, relationship or map to m.
func (e *mapProjEval) allProps(x vector.Value, m map[string]vector.Value) error {
	visit := func(k catalog.KeyID, v vector.Value) { m[e.c.Catalog.KeyName(k)] = v }
	switch x := x.(type) {
	case vector.NodeRef:
		e.c.Tx.NodeProps(uint64(x), visit)
	case vector.RelRef:
		e.c.Tx.RelProps(uint64(x), visit)
	case map[string]vector.Value:
		for k, v := range x {
			m[k] = v
		}
	default:
		return errs.Data("a map projection expects a node, relationship or map, got %s", functions.TypeName(x))
	}
	return nil
}
