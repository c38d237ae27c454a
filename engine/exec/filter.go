package exec

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/vector"
)

// filterOp narrows each batch's selection to the rows where the predicate
// is true; columns are not copied. Batches left empty are skipped.
type filterOp struct {
	c    *Context
	in   Operator
	pred expr.Evaluator
	buf  *vector.Vector // predicate converted to booleans when it is not
	sel  []int32
}

func (f *filterOp) Next() (*vector.Batch, error) {
	for {
		b, err := f.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		if b, err = f.filter(b); err != nil || b != nil {
			return b, err
		}
	}
}

// filter narrows b to the rows passing the predicate; nil when none does.
func (f *filterOp) filter(b *vector.Batch) (*vector.Batch, error) {
	p, err := f.pred.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	if p.Type != vector.Bool {
		if p, err = expr.AsBools(p, &f.buf, sel, n, "WHERE"); err != nil {
			return nil, errs.Data("WHERE expects a BOOLEAN condition: %v", err)
		}
	}
	f.sel = vector.SelectTrue(f.sel, b, p)
	if len(f.sel) == 0 {
		return nil, nil
	}
	b.Sel = f.sel
	return b, nil
}
