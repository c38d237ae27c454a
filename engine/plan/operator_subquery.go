package plan

// Union yields the rows of each input in turn: UNION ALL. UNION puts a
// Distinct above it. Every input has the same column names, in the order
// of Cols.
type Union struct {
	Inputs []Operator
	Cols   []Column
	// Mixed marks the columns whose type differs between the inputs: the
	// executor makes them generic so that every batch has the same type.
	Mixed []bool
}

func (o *Union) Columns() []Column          { return o.Cols }
func (o *Union) Children() []Operator       { return o.Inputs }
func (o *Union) SetChild(i int, c Operator) { o.Inputs[i] = c }

func (*Union) Describe() Description { return Description{Name: "Union"} }
