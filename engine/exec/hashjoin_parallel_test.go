package exec

import (
	"testing"

	"github.com/quiverdb/quiver/engine/plan"
)

// A hash join that probes on workers builds its probe side only on them:
// the statement's goroutine builds the table's side, and builds the probe
// side (a morsel source over every node, charged operator batches) only
// when the join probes it itself, here on one worker. The answer is the
// same either way: the given node (the first with v = 3) joined to every
// node with v = 3.
func TestParallelJoinBuildsProbeSideOnce(t *testing.T) {
	n := 9*morselWeight + 333 // enough morsels for a scan alone to share
	st := parallelStore(t, n)
	want := 0
	for i := range n {
		if i%7 == 3 {
			want++
		}
	}
	for _, par := range []int{4, 1} {
		probe := scanP()
		given := &plan.Limit{Count: konst(int64(1)), Input: &plan.Filter{
			Input: &plan.NodeScan{Var: "b", Labels: []string{"P"}, Cols: []plan.Column{colB}},
			Pred:  cmpOp(plan.OpEq, prop(0, "v"), konst(int64(3))),
		}}
		join := &plan.HashJoin{Left: probe, Right: given, LeftKey: prop(0, "v"), RightKey: prop(0, "v"),
			Cols: []plan.Column{colA, colB}}
		rows, c := runPar(t, st, join, par, false)
		if !plan.Chose(join, plan.StrategyParallel) {
			t.Fatalf("the join was not chosen to probe on workers:\n%s", plan.Format(join))
		}
		if len(rows) != want {
			t.Errorf("%d workers: %d pairs, want %d", par, len(rows), want)
		}
		_, serial := c.built[probe]
		if _, tabled := c.built[given]; !tabled {
			t.Errorf("%d workers: the table's side was not built on the statement's goroutine", par)
		}
		if par > 1 && (c.par == nil || len(c.par.runs) == 0) {
			t.Fatalf("%d workers: the join probed on the statement's goroutine", par)
		}
		if par > 1 && serial {
			t.Errorf("%d workers: the probe side was built on the statement's goroutine too", par)
		}
		if par == 1 && !serial {
			t.Errorf("one worker: the probe side was never built, yet the join answered")
		}
	}
}
