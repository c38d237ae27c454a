package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/vector"
)

// applyBuffer is what the apply operators (OPTIONAL MATCH, CALL { … })
// hold of one input batch: its rows numbered for the inner plan, which
// of them the inner plan matched, and the joined rows, charged to the
// statement's memory and emitted a batch at a time. The rows of one
// input batch are dropped when the next one starts.
type applyBuffer struct {
	c       *Context
	rows    *vector.Vector // row numbers for the argument batch
	matched []bool
	buf     []rowstore.Column
	n, pos  int
	out     *vector.Batch
	held    int64 // bytes of buf charged to the memory budget
}

func newApplyBuffer(c *Context, ncols int) applyBuffer {
	return applyBuffer{c: c, rows: vector.New(vector.Int64, vector.Capacity), matched: make([]bool, vector.Capacity),
		out: &vector.Batch{Cols: make([]*vector.Vector, ncols)}}
}

// next emits the buffered rows, pulling the next input batch from in and
// handing it to apply whenever they ran out; apply returning pass hands
// the input batch itself on (a unit subquery's).
func (a *applyBuffer) next(in Operator, apply func(*vector.Batch) (pass bool, err error)) (*vector.Batch, error) {
	for a.pos >= a.n {
		b, err := in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		pass, err := apply(b)
		if err != nil {
			return nil, err
		}
		if pass {
			return b, nil
		}
	}
	n := min(a.n-a.pos, vector.Capacity)
	for c := range a.buf {
		a.out.Cols[c] = a.buf[c].Emit(a.out.Cols[c], a.pos, n)
	}
	a.out.Len, a.out.Sel = n, nil
	a.pos += n
	return a.out, nil
}

// start begins input batch b: it numbers b's rows, clears their marks,
// drops the previous batch's rows and returns the argument batch, b's
// columns and the row numbers.
func (a *applyBuffer) start(b *vector.Batch) *vector.Batch {
	for r := 0; r < b.Len; r++ {
		a.rows.I64[r] = int64(r)
		a.matched[r] = false
	}
	a.buf, a.n, a.pos = make([]rowstore.Column, len(a.out.Cols)), 0, 0
	a.c.Mem.Release(a.held)
	a.held = 0
	return &vector.Batch{Cols: append(append([]*vector.Vector(nil), b.Cols...), a.rows), Len: b.Len, Sel: b.Sel}
}

// charge charges an inner batch whose rows are about to be buffered.
func (a *applyBuffer) charge(ib *vector.Batch) error {
	n, err := a.c.chargeBatch(ib)
	a.held += n
	return err
}
