package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/vector"
)

// crossOp pairs every row of its left input with every row of its right
// input. The right side is read once into growable columns (charged by
// capacity, rowstore.HeldRows); left rows are repeated with typed copies.
type crossOp struct {
	c           *Context
	left, right Operator
	nl          int

	loaded bool
	rcols  []rowstore.Column
	nright int
	held   rowstore.HeldRows // the right side's charge

	lb   *vector.Batch // current left batch
	lpos int           // logical row of lb being paired
	rpos int           // next right row to pair with it
	idx  []int32
	out  *vector.Batch
}

func (x *crossOp) load() error {
	x.loaded = true
	for {
		b, err := x.right.Next()
		if err != nil || b == nil {
			return err
		}
		if x.rcols == nil {
			x.rcols = make([]rowstore.Column, len(b.Cols))
		}
		if err := x.held.Add(&x.c.Mem, x.rcols, b); err != nil {
			return err
		}
		x.nright += b.Rows()
	}
}

func (x *crossOp) Next() (*vector.Batch, error) {
	if !x.loaded {
		// The left side runs first: it may end with an updating clause
		// whose writes the right side (a later MATCH) must see.
		b, err := x.left.Next()
		if err != nil || b == nil {
			x.loaded = true
			return nil, err
		}
		x.lb, x.lpos, x.rpos = b, 0, 0
		if err := x.load(); err != nil {
			return nil, err
		}
	}
	if x.nright == 0 {
		return nil, nil
	}
	if err := x.c.CheckCancel(); err != nil {
		return nil, err
	}
	for x.lb == nil || x.lpos >= x.lb.Rows() {
		b, err := x.left.Next()
		if err != nil || b == nil {
			return nil, err
		}
		x.lb, x.lpos, x.rpos = b, 0, 0
	}
	// One output batch pairs the current left row with a run of right rows.
	n := min(x.nright-x.rpos, vector.Capacity)
	x.idx = x.idx[:0]
	lrow := int32(x.lb.Row(x.lpos))
	for i := 0; i < n; i++ {
		x.idx = append(x.idx, lrow)
	}
	if x.out == nil {
		x.out = &vector.Batch{Cols: make([]*vector.Vector, x.nl+len(x.rcols))}
	}
	for i, v := range x.lb.Cols[:x.nl] {
		x.out.Cols[i] = vector.Reuse(x.out.Cols[i], v.Type)
		vector.CopyRows(x.out.Cols[i], 0, v, x.idx)
	}
	for i := range x.rcols {
		x.out.Cols[x.nl+i] = x.rcols[i].Emit(x.out.Cols[x.nl+i], x.rpos, n)
	}
	x.out.Len, x.out.Sel = n, nil
	x.rpos += n
	if x.rpos == x.nright {
		x.lpos++
		x.rpos = 0
	}
	return x.out, nil
}
