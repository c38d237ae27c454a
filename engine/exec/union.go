package exec

import "github.com/quiverdb/quiver/vector"

// unionOp passes through the batches of its inputs one input after the
// other (UNION ALL; UNION adds a distinct operator above). A column whose
// type differs between the inputs is made generic, so that every batch
// agrees with the type the result announces.
type unionOp struct {
	ins   []Operator
	mixed []bool
	cur   int
	anys  []*vector.Vector
	out   vector.Batch
}

func (u *unionOp) Next() (*vector.Batch, error) {
	for u.cur < len(u.ins) {
		b, err := u.ins[u.cur].Next()
		if err != nil {
			return nil, err
		}
		if b != nil {
			return u.generic(b), nil
		}
		u.cur++
	}
	return nil, nil
}

func (u *unionOp) generic(b *vector.Batch) *vector.Batch {
	convert := false
	for c, m := range u.mixed {
		convert = convert || (m && b.Cols[c].Type != vector.Any)
	}
	if !convert {
		return b
	}
	if u.anys == nil {
		u.anys = make([]*vector.Vector, len(u.mixed))
	}
	u.out.Cols = append(u.out.Cols[:0], b.Cols...)
	sel, n := rows(b)
	for c, m := range u.mixed {
		src := b.Cols[c]
		if !m || src.Type == vector.Any {
			continue
		}
		u.anys[c] = vector.Reuse(u.anys[c], vector.Any)
		dst := u.anys[c]
		vector.ForRows(sel, n, func(r int) { dst.Set(r, src.Get(r)) })
		u.out.Cols[c] = dst
	}
	u.out.Len, u.out.Sel = b.Len, b.Sel
	return &u.out
}
