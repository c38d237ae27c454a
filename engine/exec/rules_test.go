package exec

import (
	"testing"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// TestExecRulesSwitchOff checks the rules the executor applies: with one
// off, the operator takes the plain way.
func TestExecRulesSwitchOff(t *testing.T) {
	sortPlan := func() *plan.Sort {
		return &plan.Sort{Keys: []plan.SortKey{{Col: 0}}, Limit: &plan.Const{Val: int64(3), T: vector.Int64}}
	}
	if s, err := newSort(&Context{}, chosen(sortPlan()), nil); err != nil || s.topK != 3 {
		t.Errorf("top-k sort on: topK %d, %v", s.topK, err)
	}
	if s, err := newSort(&Context{}, chosen(sortPlan(), plan.RuleTopKSort), nil); err != nil || s.topK != -1 {
		t.Errorf("top-k sort off: topK %d, %v", s.topK, err)
	}
	vl := func() *plan.VarLengthExpand {
		return &plan.VarLengthExpand{Min: 1, Max: 3, Into: -1, EndpointsOnly: true,
			Input: &plan.NodeScan{Cols: []plan.Column{{Name: "a", Type: vector.Node}}},
			Cols:  []plan.Column{{Name: "a", Type: vector.Node}, {Name: "r", Type: vector.Any}, {Name: "b", Type: vector.Node}}}
	}
	if op, err := newVarLength(&Context{}, chosen(vl()), nil); err != nil {
		t.Fatal(err)
	} else if _, ok := op.(*varLength); ok {
		t.Errorf("endpoints BFS on: got the chain enumeration")
	}
	if op, err := newVarLength(&Context{}, chosen(vl(), plan.RuleEndpointsBFS), nil); err != nil {
		t.Fatal(err)
	} else if _, ok := op.(*varLength); !ok {
		t.Errorf("endpoints BFS off: got %T", op)
	}
}
