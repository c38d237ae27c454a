package exec

import (
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/vector"
)

// The probe side of a hash join: each batch of Left is matched against
// the table (probe), and the pairs of several batches are copied into
// one batch of output (copyOut) until it is full, Left is exhausted, or
// joinFillPulls batches have been pulled.

// joinFillPulls is how many batches of Left a join pulls to fill one
// batch of pairs before it emits the pairs it has: few matches among
// many probe rows (one row's equals among millions) would otherwise come
// out a row or two a batch, each a hand-off to the consumer (a channel
// round trip from a worker), while a LIMIT above still waits for no more
// than 64k probe rows.
const joinFillPulls = 64

// pull returns the next batch of Left to probe: one kept by the last
// call, the rows read while choosing the build side (pending), or
// Left's next.
func (h *hashJoin) pull() (b *vector.Batch, pending bool, err error) {
	if h.kept != nil {
		b, pending = h.kept, h.keptPending
		h.kept = nil
		return b, pending, nil
	}
	if h.pending != nil {
		b = h.pending
		h.pending = nil
		return b, true, nil
	}
	b, err = h.left.Next()
	return b, false, err
}

// probe matches b's rows against the table: lrows and lmatch.
func (h *hashJoin) probe(b *vector.Batch, pending bool) error {
	h.lb, h.lpos, h.mpos = b, 0, 0
	if pending {
		h.lrows, h.lmatch = h.lrows[:0], h.lmatch[:0]
		for i, k := range h.pendingKeys {
			if m := h.table[k]; len(m) > 0 { // "" (null) is no key
				h.lrows = append(h.lrows, int32(i))
				h.lmatch = append(h.lmatch, m)
			}
		}
		h.pendingKeys = nil
		return nil
	}
	if viewed, err := h.matchView(b); viewed || err != nil {
		if err == nil {
			err = h.narrowAlso(b)
		}
		return err
	}
	keys, err := h.lkey.Eval(b)
	if err != nil {
		return err
	}
	h.matchBatch(keys, b)
	return h.narrowAlso(b)
}

// outAt is where the probe side's and the built columns start in out:
// the probe side's first, or the other way round when the join hashed
// the plan's Left.
func (h *hashJoin) outAt() (lat, rat int) {
	if h.buildFirst {
		return len(h.rcols), 0
	}
	return 0, h.nl
}

// sameTypes reports whether b's columns have the types of those out
// holds rows of, so that b's pairs may follow them in out.
func (h *hashJoin) sameTypes(b *vector.Batch) bool {
	lat, _ := h.outAt()
	return sameColTypes(h.out.Cols[lat:lat+h.nl], b.Cols[:h.nl])
}

// fillPulls is how many batches of Left the join pulls to fill one
// batch of pairs: joinFillPulls, or one on a gather's worker that fills
// its own batch from sparse ones (gather_fill.go), which would copy the
// pairs a second time.
func (h *hashJoin) fillPulls() int {
	if h.c.worker != nil && h.c.worker.fill != nil {
		return 1
	}
	return joinFillPulls
}

// copyOut copies the pairs lidx, ridx of lb and the table's rows into
// out from row at.
func (h *hashJoin) copyOut(at int) {
	if h.out == nil {
		h.out = &vector.Batch{Cols: make([]*vector.Vector, h.nl+len(h.rcols))}
	}
	lat, rat := h.outAt()
	for i, v := range h.lb.Cols[:h.nl] {
		if at == 0 {
			h.out.Cols[lat+i] = vector.Reuse(h.out.Cols[lat+i], v.Type)
		}
		vector.CopyRows(h.out.Cols[lat+i], at, v, h.lidx)
	}
	for i := range h.rcols {
		src := h.rcols[i].V
		if src == nil {
			h.out.Cols[rat+i] = expr.NullVector
			continue
		}
		if at == 0 {
			h.out.Cols[rat+i] = vector.Reuse(h.out.Cols[rat+i], src.Type)
		}
		vector.CopyRows(h.out.Cols[rat+i], at, src, h.ridx)
	}
}
