package expr

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// mapProjEval builds x{.a, k: e, .*} per row. The item values are
// evaluated column-wise (a .key item is a property gather) one after the
// other, each put into every row's map before the next is evaluated: the
// items share one slot. A row's map takes its items in their order, as
// the text gives them.
type mapProjEval struct {
	output
	c     *Env
	x     Evaluator
	items []plan.MapProjItem
	vals  []Evaluator // nil for .*
}

func compileMapProjection(c *Env, e *plan.MapProjection) (Evaluator, error) {
	x, err := compileNode(c, e.X)
	if err != nil {
		return nil, err
	}
	var exprs []plan.Expr
	for _, it := range e.Items {
		if !it.All {
			exprs = append(exprs, it.Val)
		}
	}
	compiled, err := compileSeq(c, exprs)
	if err != nil {
		return nil, err
	}
	ev := &mapProjEval{c: c, x: x, items: e.Items, vals: make([]Evaluator, len(e.Items))}
	for i, it := range e.Items {
		if !it.All {
			ev.vals[i], compiled = compiled[0], compiled[1:]
		}
	}
	return ev, nil
}

func (e *mapProjEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	xv, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	s := e.slot()
	maps := s.iterState().mapsFor(s.t, n)
	defer vector.ForRows(sel, n, func(r int) { maps[r] = nil })
	vector.ForRows(sel, n, func(r int) {
		maps[r] = nil
		if !xv.IsNull(r) {
			maps[r] = map[string]vector.Value{}
		}
	})
	var failed error
	for i, it := range e.items {
		if it.All {
			vector.ForRows(sel, n, func(r int) {
				if maps[r] == nil {
					return
				}
				if err := e.allProps(xv.Get(r), maps[r]); err != nil && failed == nil {
					failed = err
				}
			})
			continue
		}
		v, err := e.vals[i].Eval(b)
		if err != nil {
			return nil, err
		}
		vector.ForRows(sel, n, func(r int) {
			if maps[r] != nil {
				maps[r][it.Key] = v.Get(r)
			}
		})
	}
	out := e.vec(vector.Any, n)
	vector.ForRows(sel, n, func(r int) {
		if maps[r] == nil {
			out.SetNull(r)
		} else {
			out.Any[r] = maps[r]
		}
	})
	return out, failed
}

// allProps adds every property of a node, relationship or map to m.
func (e *mapProjEval) allProps(x vector.Value, m map[string]vector.Value) error {
	visit := func(k catalog.KeyID, v vector.Value) { m[e.c.Catalog.KeyName(k)] = v }
	switch x := x.(type) {
	case vector.NodeRef:
		e.c.Tx.NodeProps(uint64(x), visit)
		return e.c.openProps(m)
	case vector.RelRef:
		e.c.Tx.RelProps(uint64(x), visit)
		return e.c.openProps(m)
	case map[string]vector.Value:
		for k, v := range x {
			m[k] = v
		}
	default:
		return errs.Data("a map projection expects a node, relationship or map, got %s", functions.TypeName(x))
	}
	return nil
}
