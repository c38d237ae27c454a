package exec

import "github.com/quiverdb/quiver/vector"

// eagerOp materialises its whole input on the first pull, then replays it:
// the barrier that keeps an updating clause from interleaving with the
// reads of the clauses around it (plan.Eager).
type eagerOp struct {
	buf    *Buffer
	filled bool
}

func newEager(c *Context, in Operator, ncols int) *eagerOp {
	b := NewBuffer(in, ncols)
	b.Track(&c.Mem)
	return &eagerOp{buf: b}
}

func (e *eagerOp) Next() (*vector.Batch, error) {
	if !e.filled {
		e.filled = true
		if err := e.buf.Fill(); err != nil {
			return nil, err
		}
	}
	return e.buf.Next()
}
