package exec

import "github.com/quiverdb/quiver/vector"

// eager is plan.Eager: a Buffer filled on the first pull, charged to the
// query's memory budget.
type eager struct {
	c      *Context
	buf    *Buffer
	filled bool
}

func newEager(c *Context, in Operator, ncols int) *eager {
	b := NewBuffer(in, ncols)
	b.Track(&c.Mem)
	return &eager{c: c, buf: b}
}

func (e *eager) Next() (*vector.Batch, error) {
	if !e.filled {
		e.filled = true
		if err := e.buf.Fill(); err != nil {
			return nil, err
		}
	}
	return e.buf.Next()
}
