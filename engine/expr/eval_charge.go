package expr

import (
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// chargedEval is the memory accountant of an expression that builds
// values: it charges the strings, lists and maps of each output batch
// while the batch lives (an Evaluator overwrites its output at its next
// call, so the previous batch's charge is given back then), and refuses
// a value that nests deeper than vector.MaxValueDepth, so that nothing
// downstream recurses deeper.
//
// The charge is made once the batch is built; kernels that can build a
// value of any size (concatenation, range(), replace()) reserve its size
// before allocating (memory.Tracker.Reserve).
type chargedEval struct {
	c    *Env
	in   Evaluator
	held int64 // bytes charged for the last output
}

func (e *chargedEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	v, err := e.in.Eval(b)
	if err != nil || (v.Type != vector.String && v.Type != vector.Any) {
		e.drop()
		return v, err
	}
	active := e.c.Mem.Active()
	if !active && v.Type == vector.String {
		return v, nil // strings nest nothing, and nobody counts their bytes
	}
	sel, n := rows(b)
	size, ok := memory.VectorBytes(v, sel, n)
	if !ok {
		return nil, memory.TooDeep()
	}
	if active {
		if err := e.c.Mem.Charge(size); err != nil {
			return nil, err
		}
		e.drop()
		e.held = size
	}
	return v, nil
}

// drop gives back the charge of the previous output.
func (e *chargedEval) drop() {
	if e.held != 0 {
		e.c.Mem.Release(e.held)
		e.held = 0
	}
}

// buildsValues reports whether e's evaluation allocates values that grow
// with its input: string and list arithmetic, function calls with string
// or generic results, list and map literals, comprehensions, reduce, map
// projections and pattern comprehensions. Column references, constants,
// parameters, property reads and boolean tests hand on values that exist
// already.
func buildsValues(e plan.Expr) bool {
	switch e := e.(type) {
	case *plan.Binary:
		if e.Op.IsLogical() || e.Op.IsComparison() {
			return false
		}
		t := e.Type()
		return t == vector.String || t == vector.Any
	case *plan.Call:
		return e.T == vector.String || e.T == vector.Any
	case *plan.List, *plan.Map, *plan.ListComp, *plan.Reduce, *plan.MapProjection, *plan.PatternSubquery:
		return true
	}
	return false
}
