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
	// fired tells from the optimized plan whether the pass changed it.
	fired func(op Operator) bool
}{
	// Variable-length expansions whose chains nobody reads become
	// endpoint searches (endpoints.go); the executor's endpoints-bfs rule
	// decides how to run them.
	{"endpoints-only", "", func(p *Plan, _ []IndexInfo) error { endpointsOnly(p.Root); return nil },
		func(op Operator) bool { v, ok := op.(*VarLengthExpand); return ok && v.EndpointsOnly }},
	{"count-expand", RuleCountExpand, func(p *Plan, _ []IndexInfo) error { countPushdown(p.Root); return nil },
		func(op Operator) bool { _, ok := op.(*CountExpand); return ok }},
	// Index seeks and joins, ordered seeks in place of sorts, and the
	// join hints (index_select.go, order_seek.go, join_hint.go).
	{"index-selection", "", selectIndexes, func(op Operator) bool {
		switch op.(type) {
		case *IndexSeek, *IndexJoin, *HashJoin:
			return true
		}
		return false
	}},
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
		if anyOperator(p.Root, ps.fired) {
			p.Fired = addRule(p.Fired, ps.name)
		}
	}
	return nil
}

// anyOperator reports whether some operator of the tree satisfies f.
func anyOperator(op Operator, f func(Operator) bool) bool {
	if f(op) {
		return true
	}
	for _, c := range op.Children() {
		if anyOperator(c, f) {
			return true
		}
	}
	return false
}
