package expr

import (
	"testing"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// TestExprRulesSwitchOff checks the strategies expressions follow: an IN
// the physical pass marked as a set lookup compiles to one, an unmarked
// one (the rule off) takes the plain way, and a marked one whose
// parameter's list mixes types, or is no list, takes it too.
func TestExprRulesSwitchOff(t *testing.T) {
	// A call compiler compiles a node of the tree Compile is building.
	inTree := func(c *Env) *Env { c.tree = newScratch(c, nil); return c }
	in := func(strategy string, list plan.Expr) *plan.Call {
		return &plan.Call{Name: functions.OpIn, T: vector.Bool, Strategy: strategy, Args: []plan.Expr{
			&plan.ColRef{Idx: 0, Name: "x", T: vector.Int64}, list}}
	}
	ints := &plan.Const{Val: []vector.Value{int64(1), int64(5)}, T: vector.Any}
	param := &plan.Param{Name: "xs", T: vector.Any}
	for _, tc := range []struct {
		name   string
		call   *plan.Call
		params map[string]vector.Value
		set    bool
	}{
		{"chosen", in(plan.RuleInSetLookup, ints), nil, true},
		{"not chosen", in("", ints), nil, false},
		{"parameter", in(plan.RuleInSetLookup, param), map[string]vector.Value{"xs": []vector.Value{"a", "b"}}, true},
		{"parameter mixing types", in(plan.RuleInSetLookup, param), map[string]vector.Value{"xs": []vector.Value{"a", int64(1)}}, false},
		{"parameter not a list", in(plan.RuleInSetLookup, param), map[string]vector.Value{"xs": int64(1)}, false},
	} {
		ev, err := compileIn(inTree(&Env{Params: tc.params}), tc.call)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(*inSetEval); ok != tc.set {
			t.Errorf("%s: set lookup %v, want %v (%T)", tc.name, ok, tc.set, ev)
		}
	}
}
