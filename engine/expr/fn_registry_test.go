package expr

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/plan"
)

// Functions whose implementation lives with the path values.
var pathFunctions = map[string]bool{"nodes": true, "relationships": true}

// TestFunctionTableMatchesImplementations holds plan.Functions (what the
// binder accepts and SHOW FUNCTIONS lists) and the evaluators together.
func TestFunctionTableMatchesImplementations(t *testing.T) {
	for name := range plan.Functions {
		if !Implemented(name) && !pathFunctions[name] {
			t.Errorf("%s() is in plan.Functions but has no implementation", name)
		}
	}
	for name := range scalarFuncs {
		if _, listed := plan.Functions[name]; !listed && !strings.HasPrefix(name, "#") {
			t.Errorf("%s() is implemented but not in plan.Functions", name)
		}
	}
	for name := range callCompilers {
		if _, listed := plan.Functions[name]; !listed && !strings.HasPrefix(name, "#") {
			t.Errorf("%s() has an Evaluator but is not in plan.Functions", name)
		}
	}
	for _, op := range []string{plan.FnStartsWith, plan.FnEndsWith, plan.FnContains, plan.FnRegex,
		plan.FnIn, plan.FnIndex, plan.FnSlice, plan.FnCase} {
		if !Implemented(op) {
			t.Errorf("operator function %s has no implementation", op)
		}
	}
}
