package exec

import "github.com/quiverdb/quiver/vector"

// unionOp passes through the batches of its inputs one input after the
// other (UNION ALL; UNION adds a distinct operator above).
type unionOp struct {
	ins []Operator
	cur int
}

func (u *unionOp) Next() (*vector.Batch, error) {
	for u.cur < len(u.ins) {
		b, err := u.ins[u.cur].Next()
		if err != nil {
			return nil, err
		}
		if b != nil {
			return b, nil
		}
		u.cur++
	}
	return nil, nil
}
