package exec

import (
	"github.com/quiverdb/quiver/engine/exec/idset"
	"github.com/quiverdb/quiver/engine/exec/rowkey"
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
	ids  idset.PairSet
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
		before := d.ids.Bytes()
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			if len(b.Cols) == 1 && !b.Cols[0].IsNull(r) {
				if k, x, ok := idset.DistinctID(b.Cols[0], r); ok {
					if d.ids.Add(int32(k), x) {
						d.sel = append(d.sel, int32(r))
					}
					continue
				}
			}
			d.key = d.key[:0]
			for _, c := range b.Cols {
				d.key = rowkey.Append(d.key, c, r)
			}
			if _, dup := d.seen[string(d.key)]; dup {
				continue
			}
			d.seen[string(d.key)] = struct{}{}
			held += memory.KeyAllocBytes(len(d.key)) + memory.SetEntryBytes
			d.sel = append(d.sel, int32(r))
		}
		if err := d.c.Mem.Charge(held + d.ids.Bytes() - before); err != nil {
			return nil, err
		}
		if len(d.sel) > 0 {
			b.Sel = d.sel
			return b, nil
		}
	}
}
