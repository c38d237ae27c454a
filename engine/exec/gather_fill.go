package exec

import "github.com/quiverdb/quiver/vector"

// A gather's worker hands each batch of its pipeline to the consumer and
// waits until the consumer is done with it. A pipeline whose filter keeps
// a few rows of each scanned batch (the rows that pass a top-k's bar, a
// rare match) would hand over a row or two at a time, a channel round
// trip and a wake-up each: W29 at L (ORDER BY p.age DESC, p.city, p.id
// LIMIT 20 over 10M people) spent more time so than on one worker. The
// worker copies the rows of such sparse batches into a batch of its own
// and hands that over when it is full, when a batch comes that does not
// fit it (other column types, or a dense batch, handed over as it is
// after it), when the pipeline ends, or once its scan has read
// fillScanned rows since the first row held: a LIMIT above waits for no
// more than that many rows of each worker's scan.

// sparseRows: a batch of fewer rows is copied into the worker's fill
// batch rather than handed over alone.
const sparseRows = vector.Capacity / 4

// fillScanned is how many rows a worker's scan reads past the first row
// held before the held rows are handed over.
var fillScanned = int64(64 * vector.Capacity) // a variable for tests

// batchFill is a gather worker's batch of the rows of several sparse
// batches of its pipeline.
type batchFill struct {
	out   *vector.Batch
	n     int
	idx   []int32
	since int64 // the worker's rows scanned when the first row came
	// charged is what out's vectors are charged to the statement, as an
	// operator's are (operatorBatchBytes).
	charged int64
	emit    func(*vector.Batch) bool
}

// pumpFilled pulls op's batches on worker context c and hands them to
// the consumer through emit, the sparse ones gathered (above). It stops
// when op ends or fails, or when emit reports the consumer gone.
func pumpFilled(c *Context, op Operator, emit func(*vector.Batch) bool) error {
	f := &batchFill{emit: emit}
	c.worker.fill = f
	defer func() {
		c.worker.fill = nil
		c.Mem.Release(f.charged)
	}()
	for {
		b, err := op.Next()
		if err != nil {
			return err
		}
		if b == nil {
			f.flush()
			return nil
		}
		n := b.Rows()
		if n == 0 {
			continue
		}
		if f.n > 0 && (n >= sparseRows || !f.fits(b)) && !f.flush() {
			return nil
		}
		if n >= sparseRows {
			if !emit(b) {
				return nil
			}
			continue
		}
		if f.n == 0 {
			f.since = c.Counters.RowsScanned
		}
		if err := f.add(c, b); err != nil {
			return err
		}
		if f.due(c) && !f.flush() {
			return nil
		}
	}
}

// fits reports whether b's rows may join those held: the same columns
// of the same types, and room for them.
func (f *batchFill) fits(b *vector.Batch) bool {
	return f.n == 0 || f.n+b.Rows() <= vector.Capacity && sameColTypes(f.out.Cols, b.Cols)
}

// add copies b's rows after those held; fits(b) must hold. A batch of
// another column count makes out anew, charged to c's statement.
func (f *batchFill) add(c *Context, b *vector.Batch) error {
	if f.out == nil || len(f.out.Cols) != len(b.Cols) {
		f.out = &vector.Batch{Cols: make([]*vector.Vector, len(b.Cols))}
		c.Mem.Release(f.charged)
		f.charged = int64(len(b.Cols)) * vector.Capacity * 8
		if err := c.Mem.Charge(f.charged); err != nil {
			return err
		}
	}
	sel, n := rows(b)
	if sel == nil {
		f.idx = appendRows(f.idx[:0], nil, n)
		sel = f.idx
	}
	for i, v := range b.Cols {
		if v == nil {
			f.out.Cols[i] = nil
			continue
		}
		if f.n == 0 {
			f.out.Cols[i] = vector.Reuse(f.out.Cols[i], v.Type)
		}
		vector.CopyRows(f.out.Cols[i], f.n, v, sel)
	}
	f.n += len(sel)
	return nil
}

// due reports whether the held rows are to be handed over now: the
// batch is nearly full, or the scan has read fillScanned rows since the
// first came.
func (f *batchFill) due(c *Context) bool {
	return f.n > 0 && (f.n > vector.Capacity-sparseRows || c.Counters.RowsScanned-f.since >= fillScanned)
}

// flush hands the held rows over, if any; false when the consumer is
// gone. The batch is the fill's own: emit returns once the consumer is
// done with it, and the next add writes it again.
func (f *batchFill) flush() bool {
	if f.n == 0 {
		return true
	}
	f.out.Len, f.out.Sel = f.n, nil
	f.n = 0
	return f.emit(f.out)
}
