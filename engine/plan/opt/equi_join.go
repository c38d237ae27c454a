package opt

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// equiJoins turns a CrossProduct whose Filter, just above it, has a
// conjunct equating a property of a node (or relationship) of one side
// with a property of one of the other, into a HashJoin on those two
// properties (rule equi-join): MATCH (a {id: 42}), (b) WHERE b.age =
// a.age pairs each b with the a of its age instead of with every a. The
// executor picks the side it hashes from the rows it sees (the side that
// ends first within a bound; exec/hashjoin_adaptive.go). The Filter
// stays whole: the join pairs every two rows whose keys are equal and
// perhaps more (lists with nulls, NaN; equal keys encode alike), and the
// Filter keeps exactly the pairs the WHERE keeps. The further such
// equalities are the join's Also (a.city = b.city beside a.age = b.age),
// which let a join of one built row drop a pair early.
func equiJoins(op plan.Operator) {
	if f, ok := op.(*plan.Filter); ok {
		if cp, ok := f.Input.(*plan.CrossProduct); ok {
			if hj := equiJoin(f.Pred, cp); hj != nil {
				f.Input = hj
			}
		}
	}
	for _, c := range op.Children() {
		equiJoins(c)
	}
}

// equiJoin is the HashJoin for cp under pred, nil when no conjunct of
// pred equates a property of each side.
func equiJoin(pred plan.Expr, cp *plan.CrossProduct) *plan.HashJoin {
	nl := len(cp.Left.Columns())
	var hj *plan.HashJoin
	for _, e := range plan.Conjuncts(pred, nil) {
		b, ok := e.(*plan.Binary)
		if !ok || b.Op != plan.OpEq {
			continue
		}
		l, lok := sideProperty(b.L)
		r, rok := sideProperty(b.R)
		if !lok || !rok {
			continue
		}
		lref, rref := l.Of.(*plan.ColRef), r.Of.(*plan.ColRef)
		if lref.Idx >= nl {
			l, r, lref, rref = r, l, rref, lref
		}
		if lref.Idx >= nl || rref.Idx < nl {
			continue // both properties of one side
		}
		right := *rref
		right.Idx -= nl
		lk, rk := &plan.Property{Of: lref, Key: l.Key}, &plan.Property{Of: &right, Key: r.Key}
		if hj == nil {
			hj = &plan.HashJoin{Left: cp.Left, Right: cp.Right, Cols: cp.Cols, Adaptive: true, LeftKey: lk, RightKey: rk}
			continue
		}
		hj.Also = append(hj.Also, plan.JoinKey{Left: lk, Right: rk})
	}
	return hj
}

// sideProperty reports whether e is a property of a node or relationship
// column.
func sideProperty(e plan.Expr) (*plan.Property, bool) {
	p, ok := e.(*plan.Property)
	if !ok {
		return nil, false
	}
	ref, ok := p.Of.(*plan.ColRef)
	return p, ok && (ref.T == vector.Node || ref.T == vector.Rel)
}
