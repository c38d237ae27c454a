package expr

import (
	"testing"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// TestExprRulesSwitchOff checks the rules expressions apply: with one off,
// the evaluator takes the plain way.
func TestExprRulesSwitchOff(t *testing.T) {
	// A call compiler compiles a node of the tree Compile is building.
	inTree := func(c *Env) *Env { c.tree = newScratch(c, nil); return c }
	off := func(rule string) *Env {
		return inTree(&Env{Rules: plan.Options{Disabled: map[string]bool{rule: true}}})
	}
	in := &plan.Call{Name: functions.OpIn, T: vector.Bool, Args: []plan.Expr{
		&plan.ColRef{Idx: 0, Name: "x", T: vector.Int64},
		&plan.Const{Val: []vector.Value{int64(1), int64(5)}, T: vector.Any},
	}}
	if ev, err := compileIn(inTree(&Env{}), in); err != nil {
		t.Fatal(err)
	} else if _, ok := ev.(*inSetEval); !ok {
		t.Errorf("IN set lookup on: got %T", ev)
	}
	if ev, err := compileIn(off(plan.RuleInSetLookup), in); err != nil {
		t.Fatal(err)
	} else if _, ok := ev.(*inSetEval); ok {
		t.Errorf("IN set lookup off: still a set lookup")
	}
}
