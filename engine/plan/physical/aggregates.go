package physical

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// factorizedAgg: an Aggregate over one expansion from a node scan,
// grouped by the start node or not grouped, whose aggregates are row
// counts and, of at least one, a property of the relationship or the far
// node that the function computes from summaries (count, sum, avg, min,
// max), none DISTINCT, walks each start node's lists instead of making
// the rows (exec/factor_agg.go). The executor needs every such
// property's column to have an integer view (or, grouped, a float one)
// and a statement that has not written; otherwise the Aggregate runs as
// usual. Counts alone are count-expand's (opt/count_pushdown.go).
func factorizedAgg(op plan.Operator) bool {
	a, ok := op.(*plan.Aggregate)
	if !ok || len(a.Keys) > 1 {
		return false
	}
	ex, ok := a.Input.(*plan.Expand)
	if !ok || ex.Into >= 0 || len(ex.Distinct) > 0 || ex.From != 0 {
		return false
	}
	if scan, ok := ex.Input.(*plan.NodeScan); !ok || len(scan.Cols) != 1 {
		return false
	}
	if len(a.Keys) == 1 {
		if k, ok := a.Keys[0].(*plan.ColRef); !ok || k.Idx != 0 {
			return false
		}
	}
	const relCol, farCol = 1, 2
	props := false
	for _, call := range a.Aggs {
		if call.Distinct {
			return false
		}
		switch arg := call.Arg.(type) {
		case nil:
			if !call.Func.RowCount {
				return false
			}
		case *plan.ColRef: // a column of the chain: never null
			if !call.Func.RowCount || arg.Idx > farCol {
				return false
			}
		case *plan.Property:
			of, ok := arg.Of.(*plan.ColRef)
			if !ok || of.Idx != relCol && of.Idx != farCol || call.Func.FromSummaries == nil {
				return false
			}
			props = true
		default:
			return false
		}
	}
	return props
}

// identityGroup: an Aggregate summing the counts of a grouped
// CountExpand (one row per distinct start node), keyed by the start node
// or a property of it, makes one group per row and runs as a Project
// (exec/identity_agg.go). A property key qualifies only when its column
// holds a distinct value for every start node, which the executor checks
// on the data; otherwise the Aggregate runs as usual.
func identityGroup(op plan.Operator) bool {
	a, ok := op.(*plan.Aggregate)
	if !ok || len(a.Keys) != 1 || len(a.Aggs) != 1 {
		return false
	}
	ce, ok := a.Input.(*plan.CountExpand)
	if !ok || !ce.Grouped {
		return false
	}
	cnt := len(ce.Cols) - 1
	if call := a.Aggs[0]; call.Func != functions.AggSum || call.Distinct {
		return false
	} else if arg, ok := call.Arg.(*plan.ColRef); !ok || arg.Idx != cnt {
		return false
	}
	switch k := a.Keys[0].(type) {
	case *plan.ColRef:
		return k.Idx == 0
	case *plan.Property:
		of, ok := k.Of.(*plan.ColRef)
		return ok && of.Idx == 0
	}
	return false
}

// relScanAgg: an Aggregate over one expansion from a node scan, of any
// types and direction, grouped by one property of the relationship (and
// optionally one of the start node) and computing only row counts
// (count(*), or the count of a column of the chain, never null), none
// DISTINCT, counts each relationship's value from the property's
// slot-ordered views instead of making the rows (exec/rel_scan_agg.go).
// The executor needs the end labels to hold for every live node, the
// lists to have no overlay, an integer view of the relationship's
// property (and a coded or integer start-node key) and a statement that
// has not written; otherwise the Aggregate runs as usual.
func relScanAgg(op plan.Operator) bool {
	a, ok := op.(*plan.Aggregate)
	if !ok || len(a.Keys) == 0 || len(a.Keys) > 2 || len(a.Aggs) == 0 {
		return false
	}
	ex, ok := a.Input.(*plan.Expand)
	if !ok || ex.Into >= 0 || len(ex.Distinct) > 0 || ex.From != 0 || len(ex.Cols) != 3 {
		return false
	}
	if scan, ok := ex.Input.(*plan.NodeScan); !ok || len(scan.Cols) != 1 {
		return false
	}
	const startCol, relCol, farCol = 0, 1, 2
	if ex.Cols[relCol].Type != vector.Rel {
		return false
	}
	var of [2]int // keys per column: start node, relationship
	for _, key := range a.Keys {
		k, ok := key.(*plan.Property)
		if !ok {
			return false
		}
		c, ok := k.Of.(*plan.ColRef)
		if !ok || c.Idx != startCol && c.Idx != relCol {
			return false
		}
		of[c.Idx]++
	}
	if of[relCol] != 1 {
		return false
	}
	for _, call := range a.Aggs {
		if call.Distinct || !call.Func.RowCount {
			return false
		}
		switch arg := call.Arg.(type) {
		case nil:
		case *plan.ColRef: // a column of the chain: never null
			if arg.Idx > farCol {
				return false
			}
		default:
			return false
		}
	}
	return true
}
