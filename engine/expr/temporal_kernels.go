package expr

import (
	"strings"
	"unsafe"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Temporal values live in generic vectors (there is no typed temporal
// vector), but a column of DATEs is common: a date's fields (d.year,
// d.month …) are read into an INTEGER vector, and date.truncate with a
// constant date unit builds the dates without the constructor map of the
// general function. A batch holding anything but dates and nulls takes
// the general path.
//
// A field is read without the general path's search by name, but is
// still boxed: an INTEGER vector would be typed in one batch and not in
// another (resultColumns). The boxes are shared (boxes.go): the small
// INTEGERs a field gives are boxed once for the process, and the dates
// of a truncation once per value while it recurs.

// dateFields reads field f of every date of of; false when a selected
// row holds something else. The output stays generic, as the general
// path's: a typed vector tells the result its column's type, which must
// not depend on what a batch holds (a DATETIME's year takes the general
// path).
func (e *propEval) dateFields(of *vector.Vector, f func(temporal.Date) int64, sel []int32, n int) (*vector.Vector, bool) {
	out := e.vec(vector.Any, n)
	ok := true
	ints := boxedInts()
	forSel(sel, n, func(r int) {
		switch d := of.Any[r].(type) {
		case temporal.Date:
			if e.year { // the common one, without a call through f
				out.Any[r] = boxInt(ints, civilYear(d.Days))
				return
			}
			out.Any[r] = boxInt(ints, f(d))
		case nil:
			out.SetNull(r)
		default:
			ok = false
		}
	})
	return out, ok
}

func init() { registerCompiler("date.truncate", compileDateTruncate) }

// dateTruncateEval is date.truncate(unit, d) for a constant date unit.
type dateTruncateEval struct {
	output
	unit  string
	days  func(int64) int64 // the unit by civil arithmetic, or nil (civil.go)
	x     Evaluator
	row   *callEval
	boxes *dateBoxes
}

// bindSlot gives the row path the same slot: one of the two writes it.
func (e *dateTruncateEval) bindSlot(s *slot) { e.output.bindSlot(s); e.row.bindSlot(s) }

func compileDateTruncate(c *Env, e *plan.Call) (Evaluator, error) {
	k, isConst := e.Args[0].(*plan.Const)
	if len(e.Args) != 2 || !isConst {
		return nil, nil
	}
	unit, isStr := k.Val.(string)
	if !isStr {
		return nil, nil
	}
	unit = strings.ToLower(unit)
	if _, isDateUnit := functions.TruncateDate(unit, temporal.Date{}); !isDateUnit {
		return nil, nil
	}
	row, err := compileRowCall(c, e)
	if err != nil {
		return nil, err
	}
	return &dateTruncateEval{unit: unit, days: truncateDays(unit), x: row.args[1], row: row}, nil
}

func (e *dateTruncateEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	if x.Type == vector.Any {
		if e.boxes == nil {
			e.boxes = newDateBoxes(truncateSpacing(e.unit))
			e.slot().t.charge(int64(unsafe.Sizeof(dateBoxes{})))
		}
		out := e.vec(vector.Any, n)
		ok := true
		forSel(sel, n, func(r int) {
			switch d := x.Any[r].(type) {
			case temporal.Date:
				if e.days != nil {
					switch t := e.days(d.Days); {
					case t == d.Days:
						out.Any[r] = x.Any[r]
					default:
						out.Any[r] = e.boxes.box(temporal.Date{Days: t})
					}
					return
				}
				switch t, _ := functions.TruncateDate(e.unit, d); {
				case t == d:
					out.Any[r] = x.Any[r] // its own box
				default:
					out.Any[r] = e.boxes.box(t)
				}
			case nil:
				out.SetNull(r)
			default:
				ok = false
			}
		})
		if ok {
			return out, nil
		}
	}
	unit, err := e.row.args[0].Eval(b)
	if err != nil {
		return nil, err
	}
	e.row.vecs[0], e.row.vecs[1] = unit, x
	return e.row.evalVecs(b, e.row.vecs)
}
