package opt

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// orderBySeeks removes a Sort whose single key is the property a BTREE
// seek below it orders by: the seek then yields its nodes in key order
// (IndexSeek.Ordered) and the rows arrive sorted. Between the Sort and
// the seek only Projects and Filters may stand (they keep row order). The
// seek must read one type class of keys (a range, STARTS WITH, or
// equality on the whole key): the index orders numbers, strings and
// booleans among themselves, not in Cypher's order across types, and an
// IN list may mix them. Rows the seek yields all have the property, so
// the nulls a Sort would place last do not occur.
func orderBySeeks(op plan.Operator) plan.Operator {
	var walk func(op, parent plan.Operator) plan.Operator
	walk = func(op, parent plan.Operator) plan.Operator {
		for _, c := range op.Children() {
			walk(c, op)
		}
		s, ok := op.(*plan.Sort)
		if !ok || len(s.Keys) != 1 {
			return op
		}
		seek := sortedBySeek(s.Input, s.Keys[0].Col)
		if seek == nil {
			return op
		}
		seek.Ordered, seek.Desc = true, s.Keys[0].Desc
		if parent == nil {
			return s.Input
		}
		if !plan.ReplaceChild(parent, s, s.Input) {
			seek.Ordered, seek.Desc = false, false
		}
		return op
	}
	if s, ok := op.(*plan.Sort); ok {
		if r := walk(s, nil); r != s {
			return r
		}
		return op
	}
	walk(op, nil)
	return op
}

// sortedBySeek returns the seek whose key order orders column col of op,
// or nil.
func sortedBySeek(op plan.Operator, col int) *plan.IndexSeek {
	switch o := op.(type) {
	case *plan.Filter:
		return sortedBySeek(o.Input, col)
	case *plan.Project:
		if col >= len(o.Exprs) {
			return nil
		}
		switch e := o.Exprs[col].(type) {
		case *plan.ColRef:
			return sortedBySeek(o.Input, e.Idx)
		case *plan.Property:
			c, ok := e.Of.(*plan.ColRef)
			if !ok {
				return nil
			}
			seek := seekAt(o.Input, c.Idx)
			if seek == nil || seek.Type != "BTREE" || seek.In != nil || !orderableValues(seek) {
				return nil
			}
			k := len(seek.Eq)
			switch {
			case k == len(seek.Props):
				if e.Key == seek.Props[k-1] {
					return seek
				}
			case e.Key == seek.Props[k] && (seek.Lo != nil || seek.Hi != nil || seek.Prefix != nil):
				return seek
			}
		}
	}
	return nil
}

// seekAt returns the IndexSeek producing column col of op through
// Filters and Projects of plain columns, or nil.
func seekAt(op plan.Operator, col int) *plan.IndexSeek {
	switch o := op.(type) {
	case *plan.IndexSeek:
		if col == 0 {
			return o
		}
	case *plan.Filter:
		return seekAt(o.Input, col)
	case *plan.Project:
		if col < len(o.Exprs) {
			if c, ok := o.Exprs[col].(*plan.ColRef); ok {
				return seekAt(o.Input, c.Idx)
			}
		}
	}
	return nil
}

// orderableValues: every value of the seek is a constant or a parameter
// of a type the index orders as Cypher does (booleans, numbers, strings),
// or null, so the executor can always read the seek in key order.
func orderableValues(seek *plan.IndexSeek) bool {
	for _, e := range append(append([]plan.Expr{}, seek.Eq...), seek.Lo, seek.Hi, seek.Prefix) {
		switch x := e.(type) {
		case nil:
		case *plan.Const:
			switch x.Val.(type) {
			case nil, bool, int64, float64, string:
			default:
				return false
			}
		case *plan.Param:
			switch x.T {
			case vector.Bool, vector.Int64, vector.Float64, vector.String, vector.Null:
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}
