package physical

import "github.com/quiverdb/quiver/engine/plan"

// markParallel chooses the parallel strategy for the top of each
// pipeline of operators that may run on workers (plan.Streams) over a
// node scan, and for an Aggregate over such a pipeline, which then
// aggregates on each worker and merges. A bare scan feeding its consumer
// gains nothing from workers. The inner plan of OPTIONAL MATCH is rebuilt
// per input batch, so it stays serial. A plan that writes never runs on
// workers: they read the transaction at once.
func markParallel(op plan.Operator, fired map[string]bool) {
	if op == nil {
		return // a missing input of a plan built by hand
	}
	switch o := op.(type) {
	case *plan.Aggregate:
		if ChainScan(o.Input) != nil {
			plan.Choose(op, plan.StrategyParallel)
			fired[plan.StrategyParallel] = true
			return
		}
	case *plan.Optional:
		markParallel(o.Input, fired)
		return
	}
	if plan.Streams(op) && ChainScan(op) != nil {
		plan.Choose(op, plan.StrategyParallel)
		fired[plan.StrategyParallel] = true
		return
	}
	for _, c := range op.Children() {
		markParallel(c, fired)
	}
}

// ChainScan returns the NodeScan at the bottom of a pipeline of operators
// that may run on workers, nil when op is not such a pipeline.
func ChainScan(op plan.Operator) *plan.NodeScan {
	for plan.Streams(op) {
		op = op.Children()[0]
	}
	scan, _ := op.(*plan.NodeScan)
	return scan
}
