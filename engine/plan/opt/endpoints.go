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
	markEndpoints(op, false, map[int]bool{})
}

// markEndpoints walks the plan; sets says duplicates of op's rows do not
// matter; compared holds the relationship columns that expansions above
// (in the same column layout) check uniqueness against.
func markEndpoints(op plan.Operator, sets bool, compared map[int]bool) {
	switch o := op.(type) {
	case *plan.Distinct:
		markEndpoints(o.Input, true, map[int]bool{})
	case *plan.Aggregate:
		markEndpoints(o.Input, dupInsensitive(o.Aggs), map[int]bool{})
	case *plan.Project:
		if !keepsColumns(o) {
			compared = map[int]bool{}
		}
		markEndpoints(o.Input, sets, compared)
	case *plan.Filter:
		markEndpoints(o.Input, sets, compared)
	case *plan.Sort:
		markEndpoints(o.Input, sets && o.Limit == nil && o.Skip == nil, map[int]bool{})
	case *plan.Expand:
		markEndpoints(o.Input, sets, withCols(compared, o.Distinct))
	case *plan.VarLengthExpand:
		rel := len(o.Input.Columns())
		o.OmitRels = o.RelVar == "" && !compared[rel]
		if sets && o.RelVar == "" && !o.PathCol && len(o.Distinct) == 0 && !compared[rel] &&
			o.Min <= 1 {
			o.EndpointsOnly = true
		}
		markEndpoints(o.Input, sets, withCols(compared, o.Distinct))
	case *plan.CrossProduct:
		markEndpoints(o.Left, sets, compared)
		markEndpoints(o.Right, sets, map[int]bool{})
	case *plan.Unwind:
		markEndpoints(o.Input, sets, map[int]bool{})
	case *plan.Optional:
		markEndpoints(o.Input, sets, map[int]bool{})
		markEndpoints(o.Inner, sets, map[int]bool{})
	default:
		// Anything else (LIMIT, SKIP, writes, shortest paths) counts rows
		// or has effects: below it every chain matters.
		for _, c := range op.Children() {
			markEndpoints(c, false, map[int]bool{})
		}
	}
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
