package plan

import "github.com/quiverdb/quiver/engine/gql"

// Hints are the planner hints of a statement, bound into its plan so that
// the optimizer needs no syntax tree.
type Hints struct {
	Index   map[string]*IndexHint // USING INDEX, by variable
	NoIndex map[string]bool       // variables of a MATCH … WITHOUT INDEX
	Joins   []*JoinHint           // USING JOIN ON a.x = b.y
}

// IndexHint is USING INDEX v:Label(props): the scan of Var must read that
// index. Line and Column place the hint for an error that it cannot be
// honoured.
type IndexHint struct {
	Var, Label   string
	Props        []string
	Line, Column int
}

// JoinHint is USING JOIN ON Var.Prop = RightVar.RightProp: the two pattern
// parts join by hashing.
type JoinHint struct {
	Var, Prop           string
	RightVar, RightProp string
	Line, Column        int
}

func collectHints(stmt *gql.Statement) *Hints {
	h := &Hints{Index: map[string]*IndexHint{}, NoIndex: map[string]bool{}}
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
					h.Index[hint.Var] = &IndexHint{Var: hint.Var, Label: hint.Label, Props: hint.Props,
						Line: hint.Pos.Line, Column: hint.Pos.Column}
				case gql.HintJoin:
					h.Joins = append(h.Joins, &JoinHint{Var: hint.Var, Prop: hint.Props[0],
						RightVar: hint.RightVar, RightProp: hint.RightProp, Line: hint.Pos.Line, Column: hint.Pos.Column})
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
