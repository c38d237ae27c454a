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
	e := &eagerOp{buf: b}
	c.eagers = append(c.eagers, e)
	return e
}

// DrainUpdates runs every Eager barrier of the statement that was never
// pulled: a LIMIT 0 (or any operator that stops early) above an updating
// clause limits the rows returned, not the writes.
func DrainUpdates(c *Context) error {
	for _, e := range c.eagers {
		if !e.filled {
			e.filled = true
			if err := e.buf.Fill(); err != nil {
				return err
			}
		}
	}
	return nil
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
