package plan

import "github.com/quiverdb/quiver/engine/gql"

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
	check := func(name string) {
		if name != "" && !kept[name] && b.bound(name) {
			found = true
		}
	}
	parts := func(ps []*gql.PatternPart) {
		for _, p := range ps {
			for _, n := range p.Nodes {
				check(n.Var)
			}
			for _, r := range p.Rels {
				check(r.Var)
			}
		}
	}
	gql.Walk(where, func(x gql.Expr) bool {
		switch x := x.(type) {
		case *gql.Variable:
			check(x.Name)
		case *gql.PatternExpr:
			parts([]*gql.PatternPart{x.Part})
		case *gql.PatternComprehension:
			parts([]*gql.PatternPart{x.Part})
		case *gql.Exists:
			if x.Pattern != nil {
				parts(x.Pattern.Parts)
			} else {
				found = true // a whole subquery: evaluate it before the projection
			}
		}
		return !found
	})
	return found
}
