// Package physical is the physical-planning pass: after the optimizer's
// rewrites (engine/plan/opt), it decides once per statement, from the plan
// alone, which strategy each operator runs with, and records the choice
// on the operator (plan.Physical) and in the plan's fired rules, where
// EXPLAIN shows both. The executor follows the record; it keeps only the
// guards that must see data (has the statement written, does a column
// view exist, is there more than one morsel), and PROFILE says when one
// of them sent the work back to the general path.
//
// Each strategy is a named check of one operator's shape. A strategy
// that is an optimizer rule is never chosen while the rule is off, which
// is how the metamorphic tests compare a query with and without it.
package physical

import "github.com/quiverdb/quiver/engine/plan"

// strategy is one physical choice: applies reports whether op, in a plan
// that writes or not, has the shape the strategy needs.
type strategy struct {
	name    string
	rule    string // the rule that switches it off, or "" for none
	applies func(op plan.Operator) bool
}

// strategies are the choices made per operator, in the order the
// executor tries them.
var strategies = []strategy{
	{plan.StrategyCountRange, plan.RuleRangeFilter, countRange},
	{plan.StrategyCountCodes, plan.RuleCodeMatch, countCodes},
	{plan.StrategyRangeExpand, plan.RuleRangeFilter, rangeExpand},
	{plan.RuleRangeFilter, plan.RuleRangeFilter, rangeFilter},
	{plan.RuleFactorizedAgg, plan.RuleFactorizedAgg, factorizedAgg},
	{plan.RuleIdentityGroup, plan.RuleIdentityGroup, identityGroup},
	{plan.RuleRelScanAgg, plan.RuleRelScanAgg, relScanAgg},
	{plan.RuleCodeDistinct, plan.RuleCodeDistinct, codeDistinct},
	{plan.RuleFarSet, plan.RuleFarSet, farSet},
	{plan.RuleCodeFilter, plan.RuleCodeFilter, codeFilter},
	{plan.RuleCodeMatch, plan.RuleCodeMatch, codeMatch},
	{plan.StrategyMatchRange, plan.RuleRangeFilter, matchRange},
	{plan.RuleTopKSort, plan.RuleTopKSort, topK},
	{plan.RuleTypedSort, plan.RuleTypedSort, typedSort},
	{plan.RuleTopKBar, plan.RuleTopKBar, topKBar},
	{plan.RuleEndpointsBFS, plan.RuleEndpointsBFS, endpointsBFS},
	{plan.RuleLabelCover, plan.RuleLabelCover, labelCover},
	{plan.StrategyHopMap, "", hopMap},
}

// Choose records the strategies of p's operators. It is the optimizer's
// last pass (opt.Optimize); a plan built by hand runs it before
// exec.Build to get the strategies the engine would use.
func Choose(p *plan.Plan) {
	// fired has bit i set when strategies[i] was chosen somewhere; the
	// pass runs for every statement, so it keeps to a word, not a map.
	var fired uint64
	inSets, inSetFired := p.Options.On(plan.RuleInSetLookup), false
	codeCalls, codeCallFired := p.Options.On(plan.RuleCodeCall), false
	each(p.Root, func(op plan.Operator) {
		for i, s := range strategies {
			if (s.rule == "" || p.Options.On(s.rule)) && s.applies(op) && plan.Choose(op, s.name) {
				fired |= 1 << i
			}
		}
	}, func(op plan.Operator, e plan.Expr) {
		// The call carries the choice; the operator shows it where it
		// can take a strategy.
		if inSets && inSetLookup(e) {
			plan.Choose(op, plan.RuleInSetLookup)
			inSetFired = true
		}
		if codeCalls && codeCall(op, e) {
			plan.Choose(op, plan.RuleCodeCall)
			codeCallFired = true
		}
	})
	// The fired list keeps its order: the binder's and optimizer's rules,
	// then the strategies in the order above, then parallelism.
	for i, s := range strategies {
		if fired&(1<<i) != 0 {
			p.Fired = plan.AddRule(p.Fired, s.name)
		}
	}
	if inSetFired {
		p.Fired = plan.AddRule(p.Fired, plan.RuleInSetLookup)
	}
	if codeCallFired {
		p.Fired = plan.AddRule(p.Fired, plan.RuleCodeCall)
	}
	if !p.Writes && markParallel(p.Root) {
		p.Fired = plan.AddRule(p.Fired, plan.StrategyParallel)
	}
}

// topK: a Sort under LIMIT keeps a bounded heap of the first SKIP+LIMIT
// rows (exec/sort.go).
func topK(op plan.Operator) bool {
	s, ok := op.(*plan.Sort)
	return ok && s.Limit != nil
}

// typedSort: every Sort orders its rows through typed keys (exec/sort_typed.go).
func typedSort(op plan.Operator) bool {
	_, ok := op.(*plan.Sort)
	return ok
}

// topKBar: a top-k Sort (topK chose it just before) whose first key is
// a property of the scanned node below its Project publishes its k-th
// value as a bar the scan's rows are tested against through the column's
// view before the Project gathers them (exec/topk_bar.go).
func topKBar(op plan.Operator) bool {
	s, ok := op.(*plan.Sort)
	if !ok || !plan.Chose(s, plan.RuleTopKSort) {
		return false
	}
	_, _, ok = plan.TopKBarKey(s)
	return ok
}

// endpointsBFS: a variable-length expansion whose chains nobody reads
// (opt/endpoints.go) searches breadth-first for each far end once
// (exec/varlength.go).
func endpointsBFS(op plan.Operator) bool {
	v, ok := op.(*plan.VarLengthExpand)
	return ok && v.EndpointsOnly
}

// labelCover: an expansion skips its far-end label test for a label every
// live node carries, and turns the test into bitset lookups once it has
// made enough of them (exec/expand.go); both need a statement that has
// not written, which the executor checks.
func labelCover(op plan.Operator) bool {
	e, ok := op.(*plan.Expand)
	return ok && len(e.ToLabels) > 0
}

// hopMap: an intersection of sorted lists may switch, per start node, to
// a map of that node's paths (exec/intersect_hops.go); the executor
// decides per node, from what the rows have cost, and only while the
// statement has not written.
func hopMap(op plan.Operator) bool {
	_, ok := op.(*plan.ExpandIntersect)
	return ok
}
