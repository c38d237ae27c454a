package plan

import "github.com/quiverdb/quiver/engine/gql"

// keyedVars lists the variables a MATCH's WHERE constrains by a property
// compared with a literal or parameter (n.p = 1, n.p > $x, n.p IN [...],
// n.p STARTS WITH 's'), in its top-level AND. Such a node is as good a
// start for a pattern part as one with an inline property map: an index
// may find it directly, and a filter right after its scan prunes early.
func keyedVars(where gql.Expr) map[string]bool {
	out := map[string]bool{}
	var walk func(e gql.Expr)
	walk = func(e gql.Expr) {
		switch x := e.(type) {
		case *gql.Binary:
			switch x.Op {
			case gql.OpAnd:
				walk(x.L)
				walk(x.R)
			case gql.OpIn, gql.OpStartsWith:
				if v, ok := propVar(x.L); ok && isLiteral(x.R) {
					out[v] = true
				}
			}
		case *gql.Comparison:
			for i, op := range x.Ops {
				if op != gql.OpEq && op != gql.OpLt && op != gql.OpLe && op != gql.OpGt && op != gql.OpGe {
					continue
				}
				l, r := x.Operands[i], x.Operands[i+1]
				if v, ok := propVar(l); ok && isLiteral(r) {
					out[v] = true
				}
				if v, ok := propVar(r); ok && isLiteral(l) {
					out[v] = true
				}
			}
		}
	}
	if where != nil {
		walk(where)
	}
	return out
}

func propVar(e gql.Expr) (string, bool) {
	p, ok := e.(*gql.PropertyAccess)
	if !ok {
		return "", false
	}
	v, ok := p.X.(*gql.Variable)
	if !ok {
		return "", false
	}
	return v.Name, true
}

func isLiteral(e gql.Expr) bool {
	switch x := e.(type) {
	case *gql.Literal, *gql.Param:
		return true
	case *gql.ListLit:
		for _, el := range x.Elems {
			if !isLiteral(el) {
				return false
			}
		}
		return true
	}
	return false
}
