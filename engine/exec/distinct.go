package exec

import (
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// distinctOp passes each distinct row once, in first-seen order, by
// narrowing the selection of the batches it receives. A row of one
// integer, node or relationship is checked in an integer set (the kind
// as the set's group, pairset.go); other rows by their byte key.
type distinctOp struct {
	c    *Context
	in   Operator
	seen map[string]struct{}
	ids  pairSet
	key  []byte
	sel  []int32
}

func (d *distinctOp) Next() (*vector.Batch, error) {
	for {
		b, err := d.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
		d.sel = d.sel[:0]
		var held int64
		before := d.ids.bytes()
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			if len(b.Cols) == 1 && !b.Cols[0].IsNull(r) {
				if k, x, ok := distinctID(b.Cols[0], r); ok {
					if d.ids.add(int32(k), x) {
						d.sel = append(d.sel, int32(r))
					}
					continue
				}
			}
			d.key = d.key[:0]
			for _, c := range b.Cols {
				d.key = appendKey(d.key, c, r)
			}
			if _, dup := d.seen[string(d.key)]; dup {
				continue
			}
			d.seen[string(d.key)] = struct{}{}
			held += memory.KeyAllocBytes(len(d.key)) + memory.SetEntryBytes
			d.sel = append(d.sel, int32(r))
		}
		if err := d.c.Mem.Charge(held + d.ids.bytes() - before); err != nil {
			return nil, err
		}
		if len(d.sel) > 0 {
			b.Sel = d.sel
			return b, nil
		}
	}
}
