package plan

// Union yields the rows of each input in turn: UNION ALL. UNION puts a
// Distinct above it. Every input has the same column names, in the order
// of Cols.
type Union struct {
	Inputs []Operator
	Cols   []Column
}

func (o *Union) Columns() []Column    { return o.Cols }
func (o *Union) Children() []Operator { return o.Inputs }
