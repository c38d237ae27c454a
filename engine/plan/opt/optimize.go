package opt

import (
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/physical"
)

// The optimizer: an ordered list of named passes that rewrite a bound
// plan. Binding makes the choices that need the query's text (which end of
// a pattern to start from, where a label test goes, constant folding);
// the passes below need only the plan, its bound hints and the indexes of
// the statement's snapshot. A pass named by an optimizer rule (rules.go)
// is skipped when that rule is off.
var passes = []struct {
	name string
	rule string // the rule that switches it off, or "" for none
	run  func(p *plan.Plan, indexes []plan.IndexInfo) error
	// fired tells from the optimized plan whether the pass changed it.
	fired func(op plan.Operator) bool
}{
	// An expansion and the one closing a cycle on a bound node become one
	// intersection of sorted lists (intersect.go), before filters move
	// down between them.
	{"expand-intersect", plan.RuleExpandIntersect, func(p *plan.Plan, _ []plan.IndexInfo) error { p.Root = fuseIntersects(p.Root); return nil },
		func(op plan.Operator) bool { _, ok := op.(*plan.ExpandIntersect); return ok }},
	// Each WHERE conjunct just above the operator that binds what it
	// reads (filter_pushdown.go), before the passes that look for
	// filters on scans.
	{"filter-pushdown", plan.RuleFilterPushdown, func(p *plan.Plan, _ []plan.IndexInfo) error { p.Root = pushFilters(p.Root); return nil },
		func(op plan.Operator) bool { f, ok := op.(*plan.Filter); return ok && f.Pushed }},
	// all() and none() over a variable-length chain's elements become
	// tests the expansion makes as the chain grows (path_prune.go),
	// before the endpoint searches are marked, which then test them too.
	// shortestPath and allShortestPaths search among the paths whose
	// elements pass the all() and none() conjuncts of their WHERE
	// (steer.go): what they mean, so no rule switches it off.
	{"shortest-steer", "", func(p *plan.Plan, _ []plan.IndexInfo) error { p.Root = steerShortest(p.Root); return nil },
		func(op plan.Operator) bool { s, ok := op.(*plan.ShortestPath); return ok && s.Steer && s.Pruned() }},
	{plan.RulePathPrune, plan.RulePathPrune, func(p *plan.Plan, _ []plan.IndexInfo) error { p.Root = prunePaths(p.Root, false); return nil },
		func(op plan.Operator) bool {
			switch s := op.(type) {
			case *plan.VarLengthExpand:
				return s.Pruned()
			case *plan.ShortestPath:
				return !s.Steer && s.Pruned()
			}
			return false
		}},
	// Variable-length expansions whose chains nobody reads become
	// endpoint searches (endpoints.go); the executor's endpoints-bfs rule
	// decides how to run them.
	{"endpoints-only", "", func(p *plan.Plan, _ []plan.IndexInfo) error { endpointsOnly(p.Root); return nil },
		func(op plan.Operator) bool { v, ok := op.(*plan.VarLengthExpand); return ok && v.EndpointsOnly }},
	{"count-expand", plan.RuleCountExpand, func(p *plan.Plan, indexes []plan.IndexInfo) error {
		countPushdown(p.Root, p.Options.On(plan.RuleCountFilter), indexes)
		return nil
	}, func(op plan.Operator) bool { _, ok := op.(*plan.CountExpand); return ok }},
	// count-expand took the chain's filters along (count_filter.go):
	// nothing more to do, only to report it.
	{plan.RuleCountFilter, plan.RuleCountFilter, func(*plan.Plan, []plan.IndexInfo) error { return nil },
		func(op plan.Operator) bool { c, ok := op.(*plan.CountExpand); return ok && c.Filtered() }},
	// Counts of a node scan grouped by labels(n) from the label bitmaps
	// (label_sets.go).
	{"label-sets", plan.RuleLabelSets, func(p *plan.Plan, _ []plan.IndexInfo) error { labelSetCounts(p.Root); return nil },
		func(op plan.Operator) bool { _, ok := op.(*plan.LabelSets); return ok }},
	// Index seeks in place of label scans (index_select.go), then index
	// joins where no constant seek serves a scan (index_join.go); USING
	// INDEX and WITHOUT INDEX hints decide, and a USING INDEX neither
	// honours is an error.
	{"index-selection", "", selectIndexes, func(op plan.Operator) bool { _, ok := op.(*plan.IndexSeek); return ok }},
	// A scan without a single label whose predicates indexes serve on
	// some labels becomes the union of those seeks and a residual read
	// (index_union.go).
	{"index-union", plan.RuleIndexUnion, selectIndexUnions, func(op plan.Operator) bool { _, ok := op.(*plan.IndexUnion); return ok }},
	{"index-join", "", selectIndexJoins, func(op plan.Operator) bool { _, ok := op.(*plan.IndexJoin); return ok }},
	// A Sort on the key a BTREE seek below it orders by goes; the seek
	// yields its nodes in order (order_seek.go).
	{"order-seek", "", func(p *plan.Plan, _ []plan.IndexInfo) error { p.Root = orderBySeeks(p.Root); return nil },
		func(op plan.Operator) bool { s, ok := op.(*plan.IndexSeek); return ok && s.Ordered }},
	// USING JOIN ON a.x = b.y joins the two pattern parts by hashing
	// (join_hint.go).
	{"join-hints", "", applyJoinHints, func(op plan.Operator) bool { h, ok := op.(*plan.HashJoin); return ok && !h.Adaptive }},
	// A CrossProduct under an equality of a property of each side joins
	// by hashing (equi_join.go), after the hints, which name their own.
	{plan.RuleEquiJoin, plan.RuleEquiJoin, func(p *plan.Plan, _ []plan.IndexInfo) error { equiJoins(p.Root); return nil },
		func(op plan.Operator) bool { h, ok := op.(*plan.HashJoin); return ok && h.Adaptive }},
}

// Optimize runs the optimizer's passes over p, in order, with the indexes
// of the snapshot the statement runs on. A hint that cannot be honoured
// is an error.
func Optimize(p *plan.Plan, indexes []plan.IndexInfo) error {
	for _, ps := range passes {
		if ps.rule != "" && !p.Options.On(ps.rule) {
			continue
		}
		if err := ps.run(p, indexes); err != nil {
			return err
		}
		if plan.Any(p.Root, ps.fired) {
			p.Fired = plan.AddRule(p.Fired, ps.name)
		}
	}
	// The physical strategies are chosen on the rewritten plan, last.
	physical.Choose(p)
	return nil
}
