package expr

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// logicEval implements AND, OR and XOR with three-valued logic: null AND
// false is false, null OR true is true, anything else involving null is
// null. A chain of one operator, however the text groups it, is one
// evaluator over all its operands (the three are associative, null
// included): it folds each operand into its output as soon as that is
// computed, so the operands share one slot, and a WHERE of 60,000 ORed
// conditions costs a vector or two rather than one per OR. Operands are
// still evaluated left to right, all of them, as the nested form did.
type logicEval struct {
	output
	op   plan.BinOp
	args []Evaluator
}

// compileLogic compiles a chain of e's operator.
func compileLogic(c *Env, e *plan.Binary) (Evaluator, error) {
	var operands []plan.Expr
	var walk func(x plan.Expr)
	walk = func(x plan.Expr) {
		if b, ok := x.(*plan.Binary); ok && b.Op == e.Op {
			walk(b.L)
			walk(b.R)
			return
		}
		operands = append(operands, x)
	}
	walk(e)
	// The operators folded into this one are nodes of the plan too.
	if err := c.tree.charge(int64(len(operands)-2) * nodeBytes); err != nil {
		return nil, err
	}
	args, err := compileSeq(c, operands)
	if err != nil {
		return nil, err
	}
	return &logicEval{op: e.Op, args: args}, nil
}

func (e *logicEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	sel, n := rows(b)
	out := e.vec(vector.Bool, n)
	for i, a := range e.args {
		x, err := a.Eval(b)
		if err != nil {
			return nil, err
		}
		if x, err = e.asBools(x, sel, n, e.op.String()); err != nil {
			return nil, err
		}
		if i == 0 {
			copy(out.Bools[:n], x.Bools[:n])
			copyNulls(out, x, sel, n)
			continue
		}
		e.fold(out, x, sel, n)
	}
	return out, nil
}

// fold combines out with the next operand x, in place.
func (e *logicEval) fold(out, x *vector.Vector, sel []int32, n int) {
	ov, xv := out.Bools, x.Bools
	if !out.HasNulls(n) && !x.HasNulls(n) {
		// Fast path: no nulls, plain boolean algebra over the whole batch.
		switch e.op {
		case plan.OpAnd:
			andBools(ov[:n], xv[:n])
		case plan.OpOr:
			orBools(ov[:n], xv[:n])
		default:
			xorBools(ov[:n], xv[:n])
		}
		return
	}
	foldNulls(e.op, out, x, n)
}

// foldNulls is fold when either side has nulls, 64 rows at a time, as
// bits (bools.go): the values combine as without nulls (a null row's
// value is never read, and where one side decides, false for AND or true
// for OR, the plain result is that value), and the validity words say
// which rows are decided.
// AND is valid where both sides are, or where either is a valid false;
// OR where both are, or where either is a valid true; XOR where both are.
func foldNulls(op plan.BinOp, out, x *vector.Vector, n int) {
	ov, xv := out.Bools[:n], x.Bools[:n]
	lw := validWords(out, n)
	for w := range lw {
		base := w * 64
		end := min(base+64, n)
		lb, rb := packBools(ov[base:end]), packBools(xv[base:end])
		lv, rv := lw[w], ^uint64(0)
		if x.Valid != nil {
			rv = x.Valid[w]
		}
		var valid, val uint64
		switch op {
		case plan.OpAnd:
			valid = (lv & rv) | (lv &^ lb) | (rv &^ rb)
			val = lb & rb
		case plan.OpOr:
			valid = (lv & rv) | (lv & lb) | (rv & rb)
			val = lb | rb
		default:
			valid = lv & rv
			val = lb ^ rb
		}
		lw[w] = valid
		unpackBools(ov[base:end], val)
	}
}

// notEval is NOT: null stays null.
type notEval struct {
	output
	x Evaluator
}

func (e *notEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	sel, n := rows(b)
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	if x, err = e.asBools(x, sel, n, "NOT"); err != nil {
		return nil, err
	}
	out := e.vec(vector.Bool, n)
	notBools(out.Bools[:n], x.Bools[:n])
	copyNulls(out, x, sel, n)
	return out, nil
}

// AsBools returns v as a Bool vector: as is when it is one, else converted
// into *buf (a null column becomes all-null booleans; generic values must be
// booleans or null). Anything else is a type error.
func AsBools(v *vector.Vector, buf **vector.Vector, sel []int32, n int, op string) (*vector.Vector, error) {
	switch v.Type {
	case vector.Bool:
		return v, nil
	case vector.Null, vector.Any:
		if *buf == nil {
			*buf = vector.New(vector.Bool, vector.Capacity)
		}
		out := *buf
		out.ResetNulls()
		return boolsInto(out, v, sel, n, op)
	}
	return nil, errs.Data("%s expects BOOLEAN operands, got %s", op, v.Type)
}

// asBools is AsBools for an evaluator of a tree: a conversion goes to
// the tree's temporary.
func (o *output) asBools(v *vector.Vector, sel []int32, n int, op string) (*vector.Vector, error) {
	switch v.Type {
	case vector.Bool:
		return v, nil
	case vector.Null, vector.Any:
		return boolsInto(o.temp(0, vector.Bool, n), v, sel, n, op)
	}
	return nil, errs.Data("%s expects BOOLEAN operands, got %s", op, v.Type)
}

// boolsInto converts the selected rows of a null or generic vector v into
// the Bool vector out.
func boolsInto(out, v *vector.Vector, sel []int32, n int, op string) (*vector.Vector, error) {
	var failed error
	vector.ForRows(sel, n, func(r int) {
		switch x := v.Get(r).(type) {
		case nil:
			out.SetNull(r)
		case bool:
			out.Bools[r] = x
		default:
			failed = errs.Data("%s expects BOOLEAN operands, got %s", op, functions.TypeName(x))
		}
	})
	return out, failed
}
