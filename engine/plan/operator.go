package plan

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// Column is one output column of an operator. Variables keep their name;
// projected expressions are named by alias or by their text.
type Column struct {
	Name string
	Type vector.Type
	// Kind names a generic (vector.Any) column's values when the plan
	// knows them: LIST, MAP. Empty means unknown (ANY).
	Kind string
	// Elem is a LIST column's element type when the plan knows it
	// (ElemOf), else vector.Null.
	Elem vector.Type
	// Hidden columns carry values later operators need but the result
	// does not show (a variable used by ORDER BY after RETURN, say).
	Hidden bool
}

// Operator is a logical plan node. Columns lists its output columns;
// expressions of its parent refer to them by position.
type Operator interface {
	Columns() []Column
	// Children lists the operator's inputs. The slice may be a view of
	// the operator's fields: read it, and replace an input through
	// SetChild.
	Children() []Operator
	// SetChild puts c in place of input i (an index into Children), so
	// that rewrites replace inputs without knowing the operator's type.
	// It panics on an index out of range, as a slice does.
	SetChild(i int, c Operator)
	// Describe says what the operator is and does, for the plan
	// printer, EXPLAIN and PROFILE (describe.go).
	Describe() Description
}

// Direction of a relationship pattern.
type Direction uint8

// Directions: Out follows a relationship from its start node, In from its
// end node, Both either way (an undirected pattern).
const (
	Out Direction = iota
	In
	Both
)

// Unit produces a single row with no columns: the input of a statement that
// starts with CREATE or RETURN.
type Unit struct{}

// NodeScan produces one row per live node carrying every label in Labels
// (every live node when Labels is empty). Labels, types and property keys
// stay names in the plan: the executor resolves them against the catalog
// when it starts, because a write of the same statement may create them.
type NodeScan struct {
	Var    string
	Labels []string
	Cols   []Column
}

// Expand follows relationships from the node in column From. It appends a
// relationship column (when RelVar is named or uniqueness needs it) and a
// node column for the other end, or checks the other end against column
// Into when that node is already bound.
type Expand struct {
	Physical
	Input  Operator
	From   int
	RelVar string
	ToVar  string
	Types  []string // empty: any type
	Dir    Direction
	// ToLabels restricts the other end.
	ToLabels []string
	// Into is the column of an already bound other end, or -1.
	Into int
	// Distinct lists relationship columns of the same MATCH whose ids the
	// new relationship must differ from (relationship uniqueness).
	Distinct []int
	Cols     []Column
}

// Filter keeps rows where Pred is true (null and false rows are dropped).
type Filter struct {
	Physical
	Input Operator
	Pred  Expr
	// Pushed: the optimizer moved these conjuncts down from a Filter
	// higher up (filter-pushdown).
	Pushed bool
}

// Project computes Exprs over each input row.
type Project struct {
	Physical
	Input Operator
	Exprs []Expr
	Cols  []Column
}

// AggCall is one aggregate: its function (the catalog's entry, which
// the executor runs) and arguments. Arg is nil for count(*).
type AggCall struct {
	Func     *functions.Agg
	Arg      Expr
	Distinct bool
	P        Expr // the percentile of percentileCont and percentileDisc
}

// Aggregate groups input rows by Keys and computes Aggs per group. Its
// output columns are the keys followed by the aggregates. Without keys it
// yields exactly one row, even over empty input.
type Aggregate struct {
	Physical
	Input Operator
	Keys  []Expr
	Aggs  []AggCall
	Cols  []Column
}

// SortKey orders rows by column Col.
type SortKey struct {
	Col  int
	Desc bool
}

// Sort orders its input by Keys (nulls last ascending, first descending;
// values of different types in Cypher's global order). When Limit is set
// only the first Skip+Limit rows are needed, so the executor keeps a top-k
// heap instead of sorting everything.
type Sort struct {
	Physical
	Input Operator
	Keys  []SortKey
	Skip  Expr
	Limit Expr
}

// Distinct removes duplicate rows.
type Distinct struct {
	Physical
	Input Operator
}

// Skip drops the first Count rows; Limit passes at most Count rows. Count
// is a constant or a parameter, evaluated once.
type Skip struct {
	Input Operator
	Count Expr
}

// Limit passes at most Count rows.
type Limit struct {
	Input Operator
	Count Expr
}

// Unwind produces one row per element of the list Expr evaluates to for
// each input row, with the element in a new column. A null or empty list
// produces no row; a value that is not a list produces itself once.
type Unwind struct {
	Physical
	Input Operator
	Expr  Expr
	Cols  []Column
}

// Argument is the leaf of a plan run once per batch of an outer operator
// (Optional): it yields that batch, whose columns are Cols.
type Argument struct{ Cols []Column }

// Optional runs Inner for each input batch, Inner being planned over an
// Argument that carries the input's columns and a row number in column
// RowCol. Input rows Inner produced nothing for come out once, with nulls
// in Inner's new columns: OPTIONAL MATCH.
type Optional struct {
	Input  Operator
	Inner  Operator
	Arg    *Argument
	RowCol int
}

// CrossProduct pairs every row of Left with every row of Right.
type CrossProduct struct {
	Left, Right Operator
	Cols        []Column
}

// CreateNode is a node a CREATE clause makes. An empty key in Keys (the
// only one then) marks a property map given as a whole, CREATE (n $map):
// its value is a map spread into properties at runtime.
type CreateNode struct {
	Labels []string
	Keys   []string
	Vals   []Expr
}

// CreateRel is a relationship a CREATE clause makes between the nodes in
// columns From and To (columns of the Create operator's own output, so a
// node created by the same clause can be an endpoint).
type CreateRel struct {
	Type     string
	From, To int
	Keys     []string
	Vals     []Expr
}

// Create makes, per input row, the nodes and relationships listed, and
// appends a column for each (in the order of Made).
type Create struct {
	Physical
	Input Operator
	Nodes []CreateNode
	Rels  []CreateRel
	// Made lists the appended columns: index into Nodes when >= 0, into
	// Rels as -(i+1) when negative, in pattern order.
	Made []int
	Cols []Column
}

func (*Unit) Columns() []Column           { return nil }
func (o *NodeScan) Columns() []Column     { return o.Cols }
func (o *Expand) Columns() []Column       { return o.Cols }
func (o *Filter) Columns() []Column       { return o.Input.Columns() }
func (o *Project) Columns() []Column      { return o.Cols }
func (o *Aggregate) Columns() []Column    { return o.Cols }
func (o *Distinct) Columns() []Column     { return o.Input.Columns() }
func (o *Sort) Columns() []Column         { return o.Input.Columns() }
func (o *Skip) Columns() []Column         { return o.Input.Columns() }
func (o *Limit) Columns() []Column        { return o.Input.Columns() }
func (o *CrossProduct) Columns() []Column { return o.Cols }
func (o *Unwind) Columns() []Column       { return o.Cols }
func (o *Argument) Columns() []Column     { return o.Cols }
func (o *Optional) Columns() []Column     { return o.Inner.Columns() }
func (o *Create) Columns() []Column       { return o.Cols }

func (*Unit) Children() []Operator           { return nil }
func (*NodeScan) Children() []Operator       { return nil }
func (o *Expand) Children() []Operator       { return one(&o.Input) }
func (o *Filter) Children() []Operator       { return one(&o.Input) }
func (o *Project) Children() []Operator      { return one(&o.Input) }
func (o *Aggregate) Children() []Operator    { return one(&o.Input) }
func (o *Distinct) Children() []Operator     { return one(&o.Input) }
func (o *Sort) Children() []Operator         { return one(&o.Input) }
func (o *Skip) Children() []Operator         { return one(&o.Input) }
func (o *Limit) Children() []Operator        { return one(&o.Input) }
func (o *CrossProduct) Children() []Operator { return []Operator{o.Left, o.Right} }
func (o *Unwind) Children() []Operator       { return one(&o.Input) }
func (*Argument) Children() []Operator       { return nil }
func (o *Optional) Children() []Operator     { return []Operator{o.Input, o.Inner} }
func (o *Create) Children() []Operator       { return one(&o.Input) }

func (*Unit) SetChild(i int, _ Operator)           { noChild(i) }
func (*NodeScan) SetChild(i int, _ Operator)       { noChild(i) }
func (o *Expand) SetChild(i int, c Operator)       { o.Input = only(i, c) }
func (o *Filter) SetChild(i int, c Operator)       { o.Input = only(i, c) }
func (o *Project) SetChild(i int, c Operator)      { o.Input = only(i, c) }
func (o *Aggregate) SetChild(i int, c Operator)    { o.Input = only(i, c) }
func (o *Distinct) SetChild(i int, c Operator)     { o.Input = only(i, c) }
func (o *Sort) SetChild(i int, c Operator)         { o.Input = only(i, c) }
func (o *Skip) SetChild(i int, c Operator)         { o.Input = only(i, c) }
func (o *Limit) SetChild(i int, c Operator)        { o.Input = only(i, c) }
func (o *CrossProduct) SetChild(i int, c Operator) { *pick(i, &o.Left, &o.Right) = c }
func (o *Unwind) SetChild(i int, c Operator)       { o.Input = only(i, c) }
func (*Argument) SetChild(i int, _ Operator)       { noChild(i) }
func (o *Optional) SetChild(i int, c Operator)     { *pick(i, &o.Input, &o.Inner) = c }
func (o *Create) SetChild(i int, c Operator)       { o.Input = only(i, c) }

// ProcedureCall runs Proc once per input row with Args evaluated over that
// row, and appends, for each row the procedure returns, the outputs listed
// in Yield (indexes into Proc.Outputs) as new columns. A void call
// (Void set: the procedure has no outputs) passes every input row through
// once, unchanged. Cols are the input's columns followed by the yielded.
type ProcedureCall struct {
	Physical
	Input Operator
	Proc  *procs.Procedure
	Args  []Expr
	Yield []int
	Void  bool
	Cols  []Column
	// Security is the row-level security of the statement when it
	// restricts the principal (nil otherwise): the executor computes
	// from it what a filtered procedure may read (procs.Visibility).
	Security *Security
}

func (o *ProcedureCall) Columns() []Column          { return o.Cols }
func (o *ProcedureCall) Children() []Operator       { return one(&o.Input) }
func (o *ProcedureCall) SetChild(i int, c Operator) { o.Input = only(i, c) }

func (*Unit) Describe() Description { return Description{Name: "Unit"} }

func (o *NodeScan) Describe() Description {
	return Description{Name: "NodeScan", Args: colName(o.Cols[0]) + labelText(o.Labels), Label: labelList(o.Labels)}
}

func (o *Expand) Describe() Description {
	in := o.Input.Columns()
	from := in[o.From].Name
	rel := colName(o.Cols[len(in)])
	to := "into " + in[max(o.Into, 0)].Name
	if o.Into < 0 {
		to = colName(o.Cols[len(in)+1]) + labelText(o.ToLabels)
	}
	types := ""
	if len(o.Types) > 0 {
		types = ":" + strings.Join(o.Types, "|")
	}
	left, right := arrows(o.Dir)
	args := fmt.Sprintf("(%s)%s[%s%s]%s(%s)", from, left, rel, types, right, to)
	if len(o.Distinct) > 0 {
		var names []string
		for _, d := range o.Distinct {
			names = append(names, colName(o.Cols[d]))
		}
		args += " distinct from " + strings.Join(names, ", ")
	}
	return Description{Name: "Expand", Args: args, Pattern: expandPattern(o)}
}

// arrows are the two halves of a relationship pattern in direction dir.
func arrows(dir Direction) (left, right string) {
	switch dir {
	case In:
		return "<-", "-"
	case Both:
		return "-", "-"
	}
	return "-", "->"
}

func (o *Filter) Describe() Description {
	return Description{Name: "Filter", Args: o.Pred.String(), Filter: o.Pred.String()}
}

func (o *Project) Describe() Description {
	return Description{Name: "Project", Args: exprList(o.Exprs, o.Cols)}
}

func (o *Aggregate) Describe() Description {
	var aggs []string
	for _, a := range o.Aggs {
		aggs = append(aggs, a.Func.Name+"("+argText(a)+")")
	}
	return Description{Name: "Aggregate", Args: fmt.Sprintf("keys [%s] aggs [%s]", exprList(o.Keys, o.Cols), strings.Join(aggs, ", "))}
}

func (*Distinct) Describe() Description { return Description{Name: "Distinct"} }

func (o *Sort) Describe() Description {
	var keys []string
	for _, k := range o.Keys {
		c := o.Input.Columns()[k.Col]
		key := colName(c)
		if c.Hidden {
			key = c.Name
		}
		if k.Desc {
			key += " DESC"
		}
		keys = append(keys, key)
	}
	args := strings.Join(keys, ", ")
	if o.Limit != nil {
		args += " top " + o.Limit.String()
		if o.Skip != nil {
			args += " after " + o.Skip.String()
		}
	}
	return Description{Name: "Sort", Args: args}
}

func (o *Skip) Describe() Description  { return Description{Name: "Skip", Args: o.Count.String()} }
func (o *Limit) Describe() Description { return Description{Name: "Limit", Args: o.Count.String()} }

func (*CrossProduct) Describe() Description { return Description{Name: "CrossProduct"} }

func (o *Unwind) Describe() Description {
	return Description{Name: "Unwind", Args: fmt.Sprintf("%s AS %s", o.Expr, o.Cols[len(o.Cols)-1].Name)}
}

func (*Argument) Describe() Description { return Description{Name: "Argument"} }
func (*Optional) Describe() Description { return Description{Name: "Optional"} }

func (o *Create) Describe() Description {
	var made []string
	for _, m := range o.Made {
		if m >= 0 {
			n := o.Nodes[m]
			made = append(made, "("+labelText(n.Labels)+propText(n.Keys, n.Vals)+")")
		} else {
			r := o.Rels[-m-1]
			made = append(made, fmt.Sprintf("[%s:%s%s]->%s", o.Cols[r.From].Name, r.Type, propText(r.Keys, r.Vals), o.Cols[r.To].Name))
		}
	}
	return Description{Name: "Create", Args: strings.Join(made, ", ")}
}

func (o *ProcedureCall) Describe() Description {
	args := make([]string, len(o.Args))
	for i, a := range o.Args {
		args[i] = a.String()
	}
	return Description{Name: "ProcedureCall", Args: o.Proc.Name + "(" + strings.Join(args, ", ") + ")"}
}
