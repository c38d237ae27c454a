package physical

import "github.com/quiverdb/quiver/engine/plan"

// The filter strategies. Their shapes are plan's (plan/shape_filters.go),
// read once here per statement; the executor reads the record and, for
// the terms, the same shape once more as it builds the operator. A bound
// that is a parameter is checked where its value is known: one of the
// wrong type sends the operator back to the general path, which PROFILE
// names among its fallbacks.

// countRange: an Aggregate of count(*) alone over a range filter over a
// node scan, every term on the scanned node (`MATCH (n:L) WHERE n.age >
// 30 RETURN count(*)`), counts straight from the columns' integer views,
// without batches (exec/count_range.go). A column without a view, or a
// statement that deleted nodes, sends it back to the general operators
// (the Filter below, a range filter itself).
func countRange(op plan.Operator) bool {
	_, f, _, ok := plan.CountOfFilteredScan(op)
	return ok && rangesOfScanned(f.Pred)
}

// countCodes: an Aggregate of count(*) alone over a Filter that is one
// code-match term of the scanned node, with integer range terms of it
// or nothing beside it, over a node scan is counted from the column's
// codes (exec/count_codes.go).
func countCodes(op plan.Operator) bool {
	_, f, _, ok := plan.CountOfFilteredScan(op)
	if !ok {
		return false
	}
	t, rest, ok := plan.CodeMatch(f.Pred)
	return ok && t.Col == 0 && (rest == nil || rangesOfScanned(rest))
}

// rangesOfScanned reports whether pred is a conjunction of integer range
// terms of the scanned node (column 0).
func rangesOfScanned(pred plan.Expr) bool {
	var buf [4]plan.RangeTerm
	terms, ok := plan.AppendRangeTerms(buf[:0], pred)
	if !ok {
		return false
	}
	for _, t := range terms {
		if t.Col != 0 {
			return false
		}
	}
	return true
}

// rangeExpand: an Expand under a range filter whose terms all read its
// input rows, the relationship it adds or its new far node takes the
// Filter's terms inside: it skips the input rows that fail, and tests
// each neighbour list on the views before it emits a row
// (exec/expand_filter.go); the Filter above, marked range-filter, runs
// inside it. The Filter's check (rangeFilter) records it, as only the
// Filter sees both; the walk visits the Expand after its Filter, and
// finds the record here.
func rangeExpand(op plan.Operator) bool {
	ex, ok := op.(*plan.Expand)
	return ok && plan.Chose(ex, plan.StrategyRangeExpand)
}

// rangeFilter: a Filter that is a conjunction of integer range terms
// (plan.AppendRangeTerms) narrows its selection straight from the columns'
// integer views (exec/filter_kernel.go); a batch whose column has no view
// takes the general predicate. Over an Expand that can apply every term
// to its lists, it runs inside the Expand (rangeExpand).
func rangeFilter(op plan.Operator) bool {
	f, ok := op.(*plan.Filter)
	if !ok {
		return false
	}
	var buf [4]plan.RangeTerm
	terms, ok := plan.AppendRangeTerms(buf[:0], f.Pred)
	if !ok {
		return false
	}
	if ex, isExpand := f.Input.(*plan.Expand); isExpand && expandTakes(ex, terms) {
		plan.Choose(ex, plan.StrategyRangeExpand)
	}
	return true
}

// expandTakes reports whether every term reads ex's input columns, the
// relationship it adds or the far node it adds (not one bound before).
func expandTakes(ex *plan.Expand, terms []plan.RangeTerm) bool {
	nin := len(ex.Input.Columns())
	for _, t := range terms {
		if t.Col > nin+1 || t.Col == nin+1 && ex.Into >= 0 {
			return false
		}
	}
	return true
}

// codeFilter: a Filter that is one equality of a node's property with a
// string (plan.CodeEquality) compares dictionary codes instead of strings
// (exec/filter_codes.go); a batch without codes, or of a statement that
// deleted nodes, takes the general predicate. A Filter that takes far-set
// (the equality reads an expansion's far node) evaluates it per
// candidate node instead.
func codeFilter(op plan.Operator) bool {
	f, ok := op.(*plan.Filter)
	if !ok || plan.Chose(op, plan.RuleFarSet) {
		return false
	}
	_, _, _, ok = plan.CodeEquality(f.Pred)
	return ok
}

// codeMatch: a Filter that is, or has as a conjunct, a string test of a
// node's property (plan.CodeMatch) other than a lone equality evaluates
// the test once per dictionary code (exec/filter_match.go), the rest of
// its conjuncts on the rows kept. Not where far-set evaluates the filter
// per candidate node.
func codeMatch(op plan.Operator) bool {
	f, ok := op.(*plan.Filter)
	if !ok || plan.Chose(op, plan.RuleFarSet) {
		return false
	}
	_, _, ok = plan.CodeMatch(f.Pred)
	return ok
}

// matchRange: a code-match Filter whose other conjuncts are all integer
// range terms tests them, on the rows the codes kept, through the
// columns' integer views (exec/filter_match.go), not through the general
// predicate, which evaluates a whole batch's rows to keep a few.
func matchRange(op plan.Operator) bool {
	if !plan.Chose(op, plan.RuleCodeMatch) {
		return false
	}
	_, rest, _ := plan.CodeMatch(op.(*plan.Filter).Pred)
	var buf [4]plan.RangeTerm
	_, ok := plan.AppendRangeTerms(buf[:0], rest)
	return rest != nil && ok
}

// inSetLookup marks an IN over a list known before the rows (a literal
// list of integers or of strings, or a parameter) as a hash-set lookup
// per row, which the expression compiler follows (engine/expr/in_set.go):
// the compiler checks a parameter's list and takes the general rules for
// one that mixes types, holds nulls or is no list. It reports whether e
// is such an IN.
func inSetLookup(e plan.Expr) bool {
	c, ok := plan.IsInSetLookup(e)
	if ok {
		c.Strategy = plan.RuleInSetLookup
	}
	return ok
}
