package plan

// The optimizer: an ordered list of named passes that rewrite a bound
// plan. Binding makes the choices that need the query's text (which end of
// a pattern to start from, where a label test goes, constant folding);
// the passes below need only the plan, its bound hints and the indexes of
// the statement's snapshot. A pass named by an optimizer rule (rules.go)
// is skipped when that rule is off.
var passes = []struct {
	name string
	rule string // the rule that switches it off, or "" for none
	run  func(p *Plan, indexes []IndexInfo) error
}{
	// Variable-length expansions whose chains nobody reads become
	// endpoint searches (endpoints.go); the executor's endpoints-bfs rule
	// decides how to run them.
	{"endpoints-only", "", func(p *Plan, _ []IndexInfo) error { endpointsOnly(p.Root); return nil }},
	{"count-expand", RuleCountExpand, func(p *Plan, _ []IndexInfo) error { countPushdown(p.Root); return nil }},
	// Index seeks and joins, ordered seeks in place of sorts, and the
	// join hints (index_select.go, order_seek.go, join_hint.go).
	{"index-selection", "", selectIndexes},
}

// Optimize runs the optimizer's passes over p, in order, with the indexes
// of the snapshot the statement runs on. A hint that cannot be honoured
// is an error.
func Optimize(p *Plan, indexes []IndexInfo) error {
	for _, ps := range passes {
		if ps.rule != "" && !p.opts.On(ps.rule) {
			continue
		}
		if err := ps.run(p, indexes); err != nil {
			return err
		}
	}
	return nil
}
