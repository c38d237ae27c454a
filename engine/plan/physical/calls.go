package physical

import (
	"strings"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// codeCallFuncs are the functions code-call takes: each depends on its
// arguments alone and gives a STRING, INTEGER, FLOAT or BOOLEAN, so its
// answer for a dictionary entry is its answer for every row holding it.
var codeCallFuncs = map[string]bool{
	"tolower": true, "toupper": true, "lower": true, "upper": true,
	"trim": true, "ltrim": true, "rtrim": true,
	"substring": true, "left": true, "right": true, "replace": true,
	"size": true, "length": true,
	"tointeger": true, "tofloat": true, "toboolean": true,
	functions.OpStartsWith: true, functions.OpEndsWith: true, functions.OpContains: true,
}

// codeCall marks a call of one of codeCallFuncs whose first argument is a
// property of a node column and whose others are constants or parameters
// (engine/expr/code_call.go): its answers are worked out once per entry
// of the property's dictionary and read per row by code. The evaluator
// takes the general path for a batch with a row the dictionary does not
// cover (no value, a value written since the base was loaded, another
// type). STARTS WITH, ENDS WITH and CONTAINS in a Filter's predicate are
// left to the filter's own code tests (code-filter, code-match, far-set).
// It reports whether e, an expression of op, is such a call.
func codeCall(op plan.Operator, e plan.Expr) bool {
	c, ok := e.(*plan.Call)
	if !ok || !codeCallFuncs[c.Name] || len(c.Args) == 0 || c.Strategy != "" && c.Strategy != plan.RuleCodeCall {
		return false
	}
	if _, filter := op.(*plan.Filter); filter && strings.HasPrefix(c.Name, "#") {
		return false
	}
	switch c.T {
	case vector.String, vector.Int64, vector.Float64, vector.Bool:
	default:
		return false
	}
	p, ok := c.Args[0].(*plan.Property)
	if !ok {
		return false
	}
	if of, ok := p.Of.(*plan.ColRef); !ok || of.T != vector.Node {
		return false
	}
	for _, a := range c.Args[1:] {
		switch a.(type) {
		case *plan.Const, *plan.Param:
		default:
			return false
		}
	}
	c.Strategy = plan.RuleCodeCall
	return true
}
