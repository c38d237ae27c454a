package plan

import "github.com/quiverdb/quiver/engine/gql"

// Hints are the planner hints of a statement, by variable.
type Hints struct {
	Index   map[string]*gql.Hint // USING INDEX, by variable
	NoIndex map[string]bool      // variables of a MATCH … WITHOUT INDEX
	Joins   []*gql.Hint          // USING JOIN ON a.x = b.y
}

func collectHints(stmt *gql.Statement) *Hints {
	h := &Hints{Index: map[string]*gql.Hint{}, NoIndex: map[string]bool{}}
	if stmt == nil || stmt.Query == nil {
		return h
	}
	for _, part := range stmt.Query.Parts {
		for _, c := range part.Clauses {
			m, ok := c.(*gql.Match)
			if !ok {
				continue
			}
			for _, hint := range m.Hints {
				switch hint.Kind {
				case gql.HintIndex:
					h.Index[hint.Var] = hint
				case gql.HintJoin:
					h.Joins = append(h.Joins, hint)
				case gql.HintNoIndex:
					for _, pp := range m.Pattern.Parts {
						for _, n := range pp.Nodes {
							if n.Var != "" {
								h.NoIndex[n.Var] = true
							}
						}
					}
				}
			}
		}
	}
	return h
}
