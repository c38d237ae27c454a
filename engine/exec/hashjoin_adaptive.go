package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// adaptiveRows is how many of Left's rows an adaptive hash join reads
// while choosing its build side: a Left that ends within it is hashed,
// and Right streams past it; a longer one is probed, Right hashed, as a
// hinted join does.
const adaptiveRows = 1 << 16

// loadAdaptive reads Left up to adaptiveRows rows, encoding their keys,
// and builds the table from Left when it ended there (swapping the roles
// of the two sides), else from Right, keeping what it read of Left to
// probe first. The equi-join rule's joins (plan.HashJoin.Adaptive) run
// it: MATCH (a {id: 42}), (b) WHERE b.age = a.age hashes the one a and
// streams every b past it, instead of holding every b.
func (h *hashJoin) loadAdaptive() error {
	h.loaded = true
	var cols []rowstore.Column
	var held rowstore.HeldRows
	var keys []string
	var first vector.Value // the first key's value
	var charged int64
	defer func() { h.c.Mem.Release(charged) }() // the keys end in the table or in pendingKeys
	for {
		b, err := h.left.Next()
		if err != nil {
			held.Release(&h.c.Mem)
			return err
		}
		if b == nil {
			break
		}
		if cols == nil {
			cols = make([]rowstore.Column, len(b.Cols))
		}
		if err := held.Add(&h.c.Mem, cols, b); err != nil {
			held.Release(&h.c.Mem)
			return err
		}
		kv, err := h.lkey.Eval(b)
		if err != nil {
			held.Release(&h.c.Mem)
			return err
		}
		var added int64
		for i := 0; i < b.Rows(); i++ {
			k, ok := h.key(kv, b.Row(i))
			if !ok {
				k = ""
			} else if first == nil {
				first = kv.Get(b.Row(i))
			}
			keys = append(keys, k)
			added += memory.KeyAllocBytes(len(k))
		}
		charged += added
		if err := h.c.Mem.Charge(added); err != nil {
			held.Release(&h.c.Mem)
			return err
		}
		if len(keys) > adaptiveRows {
			// Left is the larger side: hash Right, probe Left from what
			// was read.
			n := len(keys)
			h.pending = &vector.Batch{Cols: make([]*vector.Vector, len(cols)), Len: n}
			for c := range cols {
				if h.pending.Cols[c] = cols[c].V; cols[c].V == nil {
					h.pending.Cols[c] = vector.New(vector.Null, n)
				}
			}
			h.pendingKeys, h.pendingHeld = keys, held
			return h.load()
		}
	}
	// Left ended first: it is the build side, Right the probe side.
	h.left, h.right = h.right, h.left
	h.lkey, h.rkey = h.rkey, h.lkey
	h.lexpr, h.rexpr = h.rexpr, h.lexpr
	h.swapAlso()
	h.nl = h.nr
	h.buildFirst = true
	h.rcols, h.held, h.first = cols, held, first
	var added int64
	for r, k := range keys {
		if k == "" {
			continue
		}
		list, seen := h.table[k]
		if !seen {
			added += memory.KeyAllocBytes(len(k)) + memory.ListEntryBytes
		}
		h.table[k] = append(list, int32(r))
		added += 2 * 4
	}
	h.tabled += added
	return h.c.Mem.Charge(added)
}
