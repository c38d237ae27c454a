package exec

import "github.com/quiverdb/quiver/vector"

// cursor is the input side of a one-input operator that turns each input
// row into any number of output rows (expansions, UNWIND, procedure
// calls): it pulls input batches, walks their logical rows, records the
// input row of each output row and gathers the input columns into the
// output batch. The operator keeps only its own work: what a row yields.
//
// An output batch refers to one input batch only (its input half is
// gathered from it at the end), so the cursor does not pull the next input
// batch while output rows are pending: the operator emits first. This is
// the pull loop of DuckDB's pipelines and CockroachDB's one-input helper,
// owned in one place.
type cursor struct {
	in Operator
	// onBatch, when set, is called with each new input batch before its
	// first row (to evaluate the batch's lists or arguments, or prepare a
	// filter over it).
	onBatch func(*vector.Batch) error

	b   *vector.Batch // current input batch
	pos int           // next logical row of b
	n   int           // b's logical rows (0 before the first batch)
	sel []int32       // b's selection vector
	row int           // physical row of b being worked on

	nin int           // input columns gathered into out
	idx []int32       // input row of each output row
	out *vector.Batch // output batch: nin input columns, then the operator's
	// pool lends out's vectors (the statement's; nil allocates).
	pool *vector.Pool
}

func newCursor(pool *vector.Pool, in Operator, nin, ncols int) cursor {
	return cursor{in: in, nin: nin, idx: pool.Int32s(), pool: pool,
		out: &vector.Batch{Cols: make([]*vector.Vector, ncols)}}
}

// rowWork is what a one-input operator does with the cursor's rows; the
// cursor's fill loop calls it.
type rowWork interface {
	// produce emits output rows of the current input row (through the
	// cursor's emitRow) until the output is full or the row has none
	// left; it does nothing when none are pending.
	produce() error
	// advance moves the cursor to the next input row that has work and
	// starts it; false at the end of the input, or when the output must
	// be emitted before the cursor pulls the next input batch.
	advance() (bool, error)
}

// fill runs w until the output batch is full or the input is exhausted,
// and returns the batch (nil at the end). It owns the pull loop: output
// rows first, then the next input row, then the next input batch once the
// output no longer refers to the current one.
func (c *cursor) fill(w rowWork) (*vector.Batch, error) {
	for {
		if err := w.produce(); err != nil {
			return nil, err
		}
		if c.full() {
			return c.batch(), nil
		}
		ok, err := w.advance()
		if err != nil {
			return nil, err
		}
		if !ok {
			return c.batch(), nil
		}
	}
}

// full reports whether the output batch has no room left.
func (c *cursor) full() bool { return len(c.idx) >= vector.Capacity }

// emitRow adds an output row for the current input row; the operator has
// set its own columns at index len(c.idx) first.
func (c *cursor) emitRow() { c.idx = append(c.idx, int32(c.row)) }

// nextRow moves to the next input row, pulling an input batch when the
// current one is done. It returns false at the end of the input, or when
// the current batch is done while output rows still refer to it (the
// operator emits them, and the next call pulls).
func (c *cursor) nextRow() (bool, error) {
	if c.take() {
		return true, nil
	}
	return c.pull()
}

// take moves to the next row of the current batch, if it has one: the
// common case of nextRow, small enough to inline.
func (c *cursor) take() bool {
	if c.pos >= c.n {
		return false
	}
	c.row = c.pos
	if c.sel != nil {
		c.row = int(c.sel[c.pos])
	}
	c.pos++
	return true
}

// pull is nextRow when the current batch is done.
func (c *cursor) pull() (bool, error) {
	for c.pos >= c.n {
		if len(c.idx) > 0 {
			return false, nil
		}
		b, err := c.in.Next()
		if err != nil || b == nil {
			return false, err
		}
		c.b, c.pos, c.n, c.sel = b, 0, b.Rows(), b.Sel
		if c.onBatch != nil {
			if err := c.onBatch(b); err != nil {
				return false, err
			}
		}
	}
	c.take()
	return true, nil
}

// nextNodes is nextRow for an operator that works between the nodes of
// two columns: it moves to the next row whose column from holds a node
// and, when to >= 0, whose column to does too, skipping rows where either
// is null (a pattern from or to null matches nothing). A value that is not
// a node is an error.
func (c *cursor) nextNodes(from, to int) (src, dst uint64, ok bool, err error) {
	for {
		if !c.take() {
			if ok, err = c.pull(); !ok || err != nil {
				return 0, 0, false, err
			}
		}
		if src, ok, err = nodeAt(c.b.Cols[from], c.row); err != nil {
			return 0, 0, false, err
		}
		if !ok {
			continue
		}
		if to < 0 {
			return src, 0, true, nil
		}
		if dst, ok, err = nodeAt(c.b.Cols[to], c.row); err != nil {
			return 0, 0, false, err
		}
		if ok {
			return src, dst, true, nil
		}
	}
}

// batch ends an output batch: nil when no row was emitted, else out with
// the input columns of the emitted rows gathered beside the operator's.
// The next output batch starts empty.
func (c *cursor) batch() *vector.Batch {
	if len(c.idx) == 0 {
		return nil
	}
	gatherInput(c.pool, c.out, c.b, c.nin, c.idx)
	c.idx = c.idx[:0]
	return c.out
}
