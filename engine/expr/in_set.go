package expr

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

func init() { registerCompiler(functions.OpIn, compileIn) }

// inSetEval is IN over an INTEGER or STRING vector against a constant list
// of non-null values of the same type: a set lookup per row.
type inSetEval struct {
	output
	x    Evaluator
	ints map[int64]struct{}
	strs map[string]struct{}
	// bits holds the INTEGER set as a bitmap from lo when its values lie
	// close together (an IN list usually does): a bit test beats hashing.
	lo   int64
	bits []uint64
	row  *callEval
}

// bindSlot gives the row path the same slot: one of the two writes it.
func (e *inSetEval) bindSlot(s *slot) { e.output.bindSlot(s); e.row.bindSlot(s) }

// maxInBitmap is the widest span of an INTEGER set held as a bitmap
// (8 KiB).
const maxInBitmap = 1 << 16

// bitmap sets bits when the INTEGER set's values span at most
// maxInBitmap.
func (e *inSetEval) bitmap() {
	if len(e.ints) == 0 {
		return
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for k := range e.ints {
		lo, hi = min(lo, k), max(hi, k)
	}
	if uint64(hi-lo) >= maxInBitmap {
		return
	}
	e.lo, e.bits = lo, make([]uint64, (hi-lo)/64+1)
	for k := range e.ints {
		u := uint64(k - lo)
		e.bits[u>>6] |= 1 << (u & 63)
	}
}

func compileIn(c *Env, e *plan.Call) (Evaluator, error) {
	// The list is known before the rows when it is a literal or a
	// parameter (WHERE n.id IN $ids).
	var list []vector.Value
	known := false
	switch k := e.Args[1].(type) {
	case *plan.Const:
		if k.Val != nil {
			l, isList := k.Val.([]vector.Value)
			if !isList {
				return nil, errs.Semantic("IN expects a list on its right, got %s", functions.TypeName(k.Val))
			}
			list, known = l, true
		}
	case *plan.Param:
		list, known = c.Params[k.Name].([]vector.Value)
	}
	row, err := compileRowCall(c, e)
	if err != nil || !known || e.Strategy != plan.RuleInSetLookup {
		return row, err
	}
	// The physical pass chose the lookup for a literal list it checked;
	// a parameter's list is checked here, where its value is known.
	ev := &inSetEval{x: row.args[0], row: row}
	for _, v := range list {
		switch x := v.(type) {
		case int64:
			if ev.ints == nil {
				ev.ints = map[int64]struct{}{}
			}
			ev.ints[x] = struct{}{}
		case string:
			if ev.strs == nil {
				ev.strs = map[string]struct{}{}
			}
			ev.strs[x] = struct{}{}
		default:
			return row, nil // nulls, floats, lists: the general rules
		}
	}
	if (ev.ints == nil) == (ev.strs == nil) {
		return row, nil // empty, or mixed
	}
	ev.bitmap()
	return ev, nil
}

func (e *inSetEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	var out *vector.Vector
	switch {
	case x.Type == vector.Int64 && e.strs == nil:
		// Every row of the batch is looked up (a lookup cannot fail):
		// a loop without a selection or a closure.
		out = e.vec(vector.Bool, n)
		bools, xs := out.Bools[:n], x.I64[:n]
		if bits := e.bits; bits != nil {
			lo, span := e.lo, uint64(len(bits))*64
			for i, v := range xs {
				u := uint64(v - lo)
				bools[i] = u < span && bits[u>>6]&(1<<(u&63)) != 0
			}
			break
		}
		for i, v := range xs {
			_, bools[i] = e.ints[v]
		}
	case x.Type == vector.String && e.ints == nil:
		out = e.vec(vector.Bool, n)
		bools, xs := out.Bools[:n], x.Str[:n]
		for i, v := range xs {
			_, bools[i] = e.strs[v]
		}
	default:
		e.row.vecs[0] = x
		list, err := e.row.args[1].Eval(b)
		if err != nil {
			return nil, err
		}
		e.row.vecs[1] = list
		return e.row.evalVecs(b, e.row.vecs)
	}
	// A null x is null against a non-empty list (the list here is never
	// empty: an empty one has neither set).
	copyNulls(out, x, sel, n)
	return out, nil
}
