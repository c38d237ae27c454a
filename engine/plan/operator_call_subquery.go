package plan

import (
	"fmt"
	"strings"
)

// CallSubquery is CALL { … }: Inner, planned over Arg, runs for the rows
// of Input. Arg carries Input's columns and a row number; Inner's rows
// carry that number in column RowCol (decorrelated: Inner runs once per
// input batch) or, with PerRow, Inner runs once per input row and RowCol
// is -1. Each input row comes out once per row Inner gave for it, with
// Inner's columns Ret appended (no row: the input row is dropped, or kept
// with nulls when Optional). A unit subquery (Unit: no RETURN) passes
// each input row on once, after Inner ran for it.
//
// BatchRows > 0 is IN TRANSACTIONS OF BatchRows ROWS: the statement's
// transaction commits after every BatchRows input rows (Input is then an
// Eager, so that no read of the outer query spans a commit).
type CallSubquery struct {
	Input    Operator
	Inner    Operator
	Arg      *Argument
	RowCol   int
	PerRow   bool
	Optional bool
	Unit     bool
	// BatchRows is the IN TRANSACTIONS batch size, 0 without it.
	BatchRows int64
	Ret       []int
	Cols      []Column
	// Rows limits each input row's inner rows (decorrelated only), and
	// EmptyPlan over EmptyArg gives the rows of an input row Inner gave
	// none (a keyless aggregate's, decorrelated only), as for
	// PatternSubquery.
	Rows      RowLimit
	EmptyPlan Operator
	EmptyArg  *Argument
}

// RowLimit is the SKIP and LIMIT (when Limited) of a decorrelated
// subquery's final RETURN, which the executor applies to the rows of
// each outer row (bind_subqueries.go). The zero value keeps every row.
type RowLimit struct {
	Skip, Limit int64
	Limited     bool
}

func (l RowLimit) String() string {
	s := fmt.Sprintf("skip %d", l.Skip)
	if l.Limited {
		s += fmt.Sprintf(" limit %d", l.Limit)
	}
	return s + " per row"
}

// Keep reports whether the k-th row (from 0) of an outer row is kept.
func (l RowLimit) Keep(k int64) bool {
	return k >= l.Skip && (!l.Limited || k < l.Skip+l.Limit)
}

func (o *CallSubquery) Columns() []Column    { return o.Cols }
func (o *CallSubquery) Children() []Operator { return []Operator{o.Input, o.Inner} }
func (o *CallSubquery) SetChild(i int, c Operator) {
	*pick(i, &o.Input, &o.Inner) = c
}

func (o *CallSubquery) Describe() Description {
	var args []string
	if o.PerRow {
		args = append(args, "per row")
	} else {
		args = append(args, "per batch")
	}
	if o.Rows.Skip > 0 || o.Rows.Limited {
		args = append(args, o.Rows.String())
	}
	if o.EmptyPlan != nil {
		args = append(args, "aggregate of no rows for rows without any")
	}
	if o.Optional {
		args = append(args, "optional")
	}
	if o.Unit {
		args = append(args, "unit")
	}
	if o.BatchRows > 0 {
		args = append(args, fmt.Sprintf("in transactions of %d rows", o.BatchRows))
	}
	return Description{Name: "CallSubquery", Args: strings.Join(args, ", ")}
}

// estimated: the inner plan runs over the input's rows; a returning
// subquery yields about as many rows as the inner plan does over all of
// them, a unit subquery the input's.
func (o *CallSubquery) estimated(k *coster, in estimate, kids []estimate) estimate {
	if o.Unit {
		return estimate{rows: in.rows, cost: in.rows}
	}
	return estimate{rows: kids[1].rows, cost: in.rows + kids[1].rows}
}

// CommitsInBatches reports whether the plan rooted at op commits its
// transaction as it runs (CALL { … } IN TRANSACTIONS), which only a
// statement that is its own transaction may do.
func CommitsInBatches(op Operator) bool {
	if op == nil {
		return false
	}
	if c, ok := op.(*CallSubquery); ok && c.BatchRows > 0 {
		return true
	}
	for _, c := range op.Children() {
		if CommitsInBatches(c) {
			return true
		}
	}
	return false
}
