package physical

import "github.com/quiverdb/quiver/engine/plan"

// markParallel chooses the parallel strategy for the top of each
// pipeline of operators that may run on workers (plan.Streams) over a
// node scan (of labels or of a label expression), for an Aggregate over such a pipeline, which then
// aggregates on each worker and merges, and for a code-distinct Distinct
// over a Project of one, whose workers keep their own sets, and for a
// HashJoin whose probe side may be such a pipeline, which then probes it
// on workers over the table built once. A bare scan feeding its consumer
// gains nothing from workers. The inner plan of OPTIONAL MATCH is rebuilt
// per input batch, so it stays serial. A plan that writes never runs on
// workers: they read the transaction at once. It reports whether it
// chose any.
func markParallel(op plan.Operator) (chosen bool) {
	if op == nil {
		return false // a missing input of a plan built by hand
	}
	switch o := op.(type) {
	case *plan.Aggregate:
		if ChainScan(o.Input) != nil {
			return plan.Choose(op, plan.StrategyParallel)
		}
	case *plan.Optional:
		return markParallel(o.Input)
	case *plan.CallSubquery:
		return markParallel(o.Input) // its inner plan is rebuilt per batch
	case *plan.HashJoin:
		// An adaptive join probes whichever side proves the larger.
		if ChainScan(o.Left) != nil || o.Adaptive && ChainScan(o.Right) != nil {
			chosen = plan.Choose(op, plan.StrategyParallel)
		}
	case *plan.Distinct:
		// code-distinct reads the Project's input on workers itself.
		if _, in := DistinctProps(o); in != nil && plan.Chose(o, plan.RuleCodeDistinct) && ChainScan(in) != nil {
			return plan.Choose(op, plan.StrategyParallel)
		}
	}
	if plan.Streams(op) && ChainScan(op) != nil {
		return plan.Choose(op, plan.StrategyParallel)
	}
	for _, c := range op.Children() {
		chosen = markParallel(c) || chosen
	}
	return chosen
}

// ChainScan returns the scan at the bottom of a pipeline of operators
// that may run on workers, a NodeScan or a LabelScan (whose expression's
// bitmap is cut into morsels as a label's is), nil when op is not such a
// pipeline.
func ChainScan(op plan.Operator) plan.Operator {
	for plan.Streams(op) {
		op = op.Children()[0]
	}
	switch op.(type) {
	case *plan.NodeScan, *plan.LabelScan:
		return op
	}
	return nil
}
