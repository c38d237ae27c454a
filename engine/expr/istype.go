package expr

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// The type predicate x IS :: T over a batch: a typed vector's rows share
// one tag, so the answer is one constant for its valid rows and another
// (whether T holds null) for its null rows, written by a fill; only a
// narrow INTEGER or FLOAT32 looks at the numbers. A generic vector's
// rows are tagged first and the tags answered from a table built once
// per query; only lists of a LIST<T> other than LIST<ANY> are walked.

func init() { registerCompiler(functions.OpIsType, compileIsType) }

// tagAnswer is what a table says of a tag: no, yes, or look at the value.
type tagAnswer uint8

const (
	tagNo tagAnswer = iota
	tagYes
	tagLook
)

type isTypeEval struct {
	output
	x     Evaluator
	t     *functions.ValueType
	table [32]tagAnswer
	tags  []functions.Tag
}

func compileIsType(c *Env, e *plan.Call) (Evaluator, error) {
	k, ok := e.Args[1].(*plan.Const)
	if !ok {
		return nil, bug("%s without a constant type", e.Name)
	}
	t, err := functions.CompiledType(k.Val)
	if err != nil {
		return nil, err
	}
	args, err := compileArgs(c, e.Args[:1])
	if err != nil {
		return nil, err
	}
	ev := &isTypeEval{x: args[0], t: t}
	for tag := range ev.table {
		switch {
		case tag == int(functions.TagNull):
			ev.table[tag] = answer(t.Null)
		case tag > 31:
		case t.Has(functions.Tag(tag)):
			ev.table[tag] = tagYes
		case t.Checked(functions.Tag(tag)):
			ev.table[tag] = tagLook
		}
	}
	return ev, nil
}

func answer(b bool) tagAnswer {
	if b {
		return tagYes
	}
	return tagNo
}

func (e *isTypeEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	out := e.vec(vector.Bool, n)
	bools := out.Bools
	if x.Type == vector.Null {
		fillBools(bools, sel, n, e.t.Null)
		return out, nil
	}
	tag, typed := functions.VectorTag(x.Type)
	if !typed {
		e.generic(x, bools, sel, n)
		return out, nil
	}
	switch e.table[tag] {
	case tagLook:
		e.look(x, tag, bools, sel, n)
	default:
		fillBools(bools, sel, n, e.table[tag] == tagYes)
	}
	if x.Valid != nil && e.table[tag] != answer(e.t.Null) {
		nullRows(bools, x.Valid, sel, n, e.t.Null)
	}
	return out, nil
}

// look answers the numbers of a narrow type by their range.
func (e *isTypeEval) look(x *vector.Vector, tag functions.Tag, bools []bool, sel []int32, n int) {
	switch tag {
	case functions.TagInt:
		bits, src := e.t.IntBits, x.I64
		vector.ForRows(sel, n, func(r int) { bools[r] = functions.IntFits(src[r], bits) })
	case functions.TagFloat:
		src := x.F64
		vector.ForRows(sel, n, func(r int) { bools[r] = functions.Float32Fits(src[r]) })
	}
}

// generic answers a vector of generic values: a tag a row, then the
// table; a value whose tag needs a look is matched whole.
func (e *isTypeEval) generic(x *vector.Vector, bools []bool, sel []int32, n int) {
	e.tags = rowsOf(e.tags, n)
	tags, vals := e.tags, x.Any
	vector.ForRows(sel, n, func(r int) {
		if x.Valid.IsValid(r) {
			tags[r] = functions.TagOf(vals[r])
		} else {
			tags[r] = functions.TagNull
		}
	})
	vector.ForRows(sel, n, func(r int) {
		switch e.table[tags[r]&31] {
		case tagYes:
			bools[r] = true
		case tagNo:
			bools[r] = false
		default:
			bools[r] = e.t.Matches(vals[r])
		}
	})
}

// fillBools sets the selected rows of dst to v.
func fillBools(dst []bool, sel []int32, n int, v bool) {
	if sel == nil {
		fill(dst[:n], v)
		return
	}
	for _, r := range sel {
		dst[r] = v
	}
}

// nullRows sets the selected null rows of dst to v, skipping the
// validity words without a null.
func nullRows(dst []bool, valid vector.Validity, sel []int32, n int, v bool) {
	if sel != nil {
		for _, r := range sel {
			if !valid.IsValid(int(r)) {
				dst[r] = v
			}
		}
		return
	}
	for w, word := range valid[:(n+63)/64] {
		if word == ^uint64(0) {
			continue
		}
		for r := w * 64; r < min(n, w*64+64); r++ {
			if word&(1<<(uint(r)&63)) == 0 {
				dst[r] = v
			}
		}
	}
}
