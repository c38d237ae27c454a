package plan

import (
	"github.com/quiverdb/quiver/engine/functions"
	"strings"

	"github.com/quiverdb/quiver/engine/gql"
)

// The WHERE of a WITH may read the variables the projection drops.

// whereOverDistinct checks that the WHERE of a WITH DISTINCT reads the
// dropped variables only through the projected expressions (WITH DISTINCT
// a.x AS x WHERE a.x > 1): its value is then the same for rows that are
// duplicates, and computing it before the distinct step is sound.
func whereOverDistinct(pr *Project, nitems, whereCol int, where gql.Expr) error {
	texts := map[string]bool{}
	for _, e := range pr.Exprs[:nitems] {
		texts[e.String()] = true
	}
	var failed error
	rewrite(pr.Exprs[whereCol], len(pr.Input.Columns()), func(x Expr) (Expr, bool) {
		if texts[x.String()] {
			return x, true
		}
		if c, ok := x.(*ColRef); ok && failed == nil {
			failed = semanticAt(where.Position(), "variable %s is not defined after WITH DISTINCT", c.Name)
		}
		return nil, false
	})
	return failed
}

// seesDropped reports whether the WHERE of a WITH names a variable of the
// input that the projection does not keep under its name: it must then be
// evaluated with the projection, not after it.
func (b *binder) seesDropped(where gql.Expr, names []string) bool {
	kept := map[string]bool{}
	for _, n := range names {
		kept[n] = true
	}
	found := false
	walkNames(where, false, func(name string) bool {
		found = name == "" || (!kept[name] && b.bound(name))
		return !found
	})
	return found
}

// walkNames calls fn with every variable name e mentions, in expressions
// and in the patterns of pattern predicates, comprehensions and EXISTS,
// until fn returns false. A whole EXISTS subquery is reported as the
// name "" (its clauses are not walked). With skipAggs the arguments of
// aggregate calls are not walked.
func walkNames(e gql.Expr, skipAggs bool, fn func(name string) bool) {
	more := true
	check := func(name string) {
		if more && name != "" {
			more = fn(name)
		}
	}
	parts := func(ps []*gql.PatternPart) {
		for _, p := range ps {
			check(p.Var)
			for _, n := range p.Nodes {
				check(n.Var)
			}
			for _, r := range p.Rels {
				check(r.Var)
			}
		}
	}
	gql.Walk(e, func(x gql.Expr) bool {
		switch x := x.(type) {
		case *gql.FuncCall:
			if _, isAgg := functions.LookupAgg(strings.ToLower(x.Name)); isAgg && skipAggs && len(x.Namespace) == 0 {
				return false
			}
		case *gql.Variable:
			check(x.Name)
		case *gql.PatternExpr:
			parts([]*gql.PatternPart{x.Part})
		case *gql.PatternComprehension:
			parts([]*gql.PatternPart{x.Part})
		case *gql.Exists:
			if x.Pattern != nil {
				parts(x.Pattern.Parts)
			} else if more {
				more = fn("")
			}
		}
		return more
	})
}
