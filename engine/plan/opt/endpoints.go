package opt

import "github.com/quiverdb/quiver/engine/plan"

// endpointsOnly marks the variable-length expansions whose chains nobody
// can observe, so that the executor may produce each reachable far end once
// (a breadth-first search with a visited bitmap) instead of every chain.
// That holds below an operator that only keeps distinct rows (DISTINCT, or
// an aggregation whose aggregates ignore duplicates) when every operator in
// between maps rows one by one (filters, projections, expansions, joins):
// such operators turn equal sets of input rows into equal sets of output
// rows. The expansion itself must not expose its chain (no relationship
// variable, no path), be the only relationship pattern its uniqueness
// concerns (no Distinct columns, and no later expansion of the same MATCH
// comparing against it), and have a minimum of 0 or 1: within those bounds
// a far end is reachable by a walk exactly when it is by a trail (the
// executor checks the start of an undirected search apart).
func endpointsOnly(op plan.Operator) {
	markEndpoints(op, false, map[int]bool{}, nil)
}

// markEndpoints walks the plan; sets says duplicates of op's rows do not
// matter; compared holds the relationship columns that expansions above
// (in the same column layout) check uniqueness against; read holds the
// columns of op's rows that the operators above read, nil when that is
// not known (any may be). A relationship list that nothing reads is one
// nobody observes, named or not: a WHERE whose all() over it moved into
// the expansion (path_prune.go) leaves it unread.
func markEndpoints(op plan.Operator, sets bool, compared, read map[int]bool) {
	switch o := op.(type) {
	case *plan.Distinct:
		markEndpoints(o.Input, true, map[int]bool{}, nil)
	case *plan.Aggregate:
		exprs := append([]plan.Expr(nil), o.Keys...)
		for _, a := range o.Aggs {
			exprs = append(exprs, a.Arg, a.P)
		}
		markEndpoints(o.Input, dupInsensitive(o.Aggs), map[int]bool{}, addReads(map[int]bool{}, exprs...))
	case *plan.Project:
		if !keepsColumns(o) {
			markEndpoints(o.Input, sets, map[int]bool{}, addReads(map[int]bool{}, o.Exprs...))
			return
		}
		n := len(o.Input.Columns())
		in := within(read, n)
		for i := n; i < len(o.Exprs); i++ {
			if read == nil || read[i] {
				in = addReads(in, o.Exprs[i])
			}
		}
		markEndpoints(o.Input, sets, compared, in)
	case *plan.Filter:
		markEndpoints(o.Input, sets, compared, addReads(read, o.Pred))
	case *plan.Sort:
		markEndpoints(o.Input, sets && o.Limit == nil && o.Skip == nil, map[int]bool{}, nil)
	case *plan.Expand:
		in := within(read, len(o.Input.Columns()))
		markEndpoints(o.Input, sets, withCols(compared, o.Distinct), readCols(in, o.From, o.Into))
	case *plan.VarLengthExpand:
		rel := len(o.Input.Columns())
		unread := o.RelVar == "" || read != nil && !read[rel]
		o.OmitRels = unread && !compared[rel]
		if sets && unread && !o.PathCol && len(o.Distinct) == 0 && !compared[rel] &&
			o.Min <= 1 {
			o.EndpointsOnly = true
		}
		in := addReads(within(read, rel), o.RelVals...)
		markEndpoints(o.Input, sets, withCols(compared, o.Distinct), readCols(in, o.From, o.Into))
	case *plan.CrossProduct:
		markEndpoints(o.Left, sets, compared, within(read, len(o.Left.Columns())))
		markEndpoints(o.Right, sets, map[int]bool{}, nil)
	case *plan.Unwind:
		markEndpoints(o.Input, sets, map[int]bool{}, nil)
	case *plan.Optional:
		markEndpoints(o.Input, sets, map[int]bool{}, nil)
		markEndpoints(o.Inner, sets, map[int]bool{}, nil)
	default:
		// Anything else (LIMIT, SKIP, writes, shortest paths) counts rows
		// or has effects: below it every chain matters.
		for _, c := range op.Children() {
			markEndpoints(c, false, map[int]bool{}, nil)
		}
	}
}

// addReads returns read with the columns exprs read added, nil when read
// is nil or an expression's reads are not known (a subquery).
func addReads(read map[int]bool, exprs ...plan.Expr) map[int]bool {
	if read == nil {
		return nil
	}
	out := make(map[int]bool, len(read))
	for k := range read {
		out[k] = true
	}
	for _, e := range exprs {
		known := plan.Walk(e, func(x plan.Expr) {
			if c, ok := x.(*plan.ColRef); ok {
				out[c.Idx] = true
			}
		})
		if !known {
			return nil
		}
	}
	return out
}

// readCols returns read with cols added (nil stays nil); a column of -1
// (no Into) is none.
func readCols(read map[int]bool, cols ...int) map[int]bool {
	if read == nil {
		return nil
	}
	for _, c := range cols {
		if c >= 0 {
			read[c] = true
		}
	}
	return read
}

// within keeps the columns of read below n, the columns of an input that
// keeps them in place.
func within(read map[int]bool, n int) map[int]bool {
	if read == nil {
		return nil
	}
	out := make(map[int]bool, len(read))
	for k := range read {
		if k < n {
			out[k] = true
		}
	}
	return out
}

// dupInsensitive reports whether duplicate input rows cannot change the
// aggregates: each is DISTINCT, min or max.
func dupInsensitive(aggs []plan.AggCall) bool {
	for _, a := range aggs {
		if !a.Distinct && !a.Func.DupInsensitive {
			return false
		}
	}
	return true
}

func withCols(m map[int]bool, cols []int) map[int]bool {
	if len(cols) == 0 {
		return m
	}
	out := make(map[int]bool, len(m)+len(cols))
	for k := range m {
		out[k] = true
	}
	for _, c := range cols {
		out[c] = true
	}
	return out
}

// keepsColumns reports whether a projection keeps its input's columns in place
// (a named path added within a MATCH), so column numbers above it still
// mean the same columns below.
func keepsColumns(p *plan.Project) bool {
	n := len(p.Input.Columns())
	if len(p.Exprs) < n {
		return false
	}
	for i := 0; i < n; i++ {
		if c, ok := p.Exprs[i].(*plan.ColRef); !ok || c.Idx != i {
			return false
		}
	}
	return true
}
