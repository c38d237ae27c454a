package physical

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// maxDistinctKeys is the most properties a code-distinct DISTINCT reads:
// their codes make one integer, a product of the properties' code
// counts.
const maxDistinctKeys = 4

// codeDistinct: a Distinct over a Project of properties of node columns
// (`WITH DISTINCT p.city, p.age`), or an Aggregate without keys whose one
// aggregate is count(DISTINCT) of such a property, reads each property as
// codes (a STRING column's dictionary codes, an INTEGER column's view
// codes) and keeps each combination once in a bitmap or a hash set,
// without gathering the values (exec/code_distinct.go). The rows without
// a code (no dictionary or view, an open chunk, another type) take the
// general path's byte keys, so it never falls back as a whole.
func codeDistinct(op plan.Operator) bool {
	props, _ := DistinctProps(op)
	return props != nil
}

// DistinctProps returns the properties a code-distinct op reads and the
// operator whose rows it reads them from (the Project's input for a
// Distinct, the Aggregate's input); nil when op does not have the shape.
func DistinctProps(op plan.Operator) ([]*plan.Property, plan.Operator) {
	var exprs []plan.Expr
	var in plan.Operator
	switch o := op.(type) {
	case *plan.Distinct:
		pr, ok := o.Input.(*plan.Project)
		if !ok || len(pr.Exprs) == 0 || len(pr.Exprs) > maxDistinctKeys || len(pr.Cols) != len(pr.Exprs) {
			return nil, nil
		}
		exprs, in = pr.Exprs, pr.Input
	case *plan.Aggregate:
		if len(o.Keys) != 0 || len(o.Aggs) != 1 {
			return nil, nil
		}
		call := o.Aggs[0]
		if call.Func != functions.AggCount || !call.Distinct || call.Arg == nil {
			return nil, nil
		}
		exprs, in = []plan.Expr{call.Arg}, o.Input
	default:
		return nil, nil
	}
	if in == nil {
		return nil, nil
	}
	cols := in.Columns()
	props := make([]*plan.Property, len(exprs))
	for i, e := range exprs {
		p, ok := e.(*plan.Property)
		if !ok {
			return nil, nil
		}
		of, ok := p.Of.(*plan.ColRef)
		if !ok || of.Idx < 0 || of.Idx >= len(cols) || cols[of.Idx].Type != vector.Node {
			return nil, nil
		}
		props[i] = p
	}
	return props, in
}
