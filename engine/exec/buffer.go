package exec

import (
	"github.com/quiverdb/quiver/engine/exec/rowstore"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// Buffer runs its input to completion and keeps every row, then replays
// them. A statement with writes runs through a Buffer so that it finishes
// and commits before its first row is returned.
type Buffer struct {
	in   Operator
	cols []rowstore.Column
	n    int
	pos  int
	out  *vector.Batch
	mem  *memory.Tracker // charged for the rows kept, when set
	held rowstore.HeldRows
}

// Track charges the rows the buffer keeps to m (max_memory_per_query).
func (b *Buffer) Track(m *memory.Tracker) { b.mem = m }

// NewBuffer returns a buffer over in with ncols columns.
func NewBuffer(in Operator, ncols int) *Buffer {
	return &Buffer{in: in, cols: make([]rowstore.Column, ncols), out: &vector.Batch{Cols: make([]*vector.Vector, ncols)}}
}

// Fill reads the whole input.
func (b *Buffer) Fill() error {
	for {
		batch, err := b.in.Next()
		if err != nil || batch == nil {
			return err
		}
		if err := b.held.Add(b.mem, b.cols, batch); err != nil {
			return err
		}
		b.n += batch.Rows()
	}
}

// Next returns the buffered rows a batch at a time.
func (b *Buffer) Next() (*vector.Batch, error) {
	n := min(b.n-b.pos, vector.Capacity)
	if n <= 0 {
		return nil, nil
	}
	for c := range b.cols {
		b.out.Cols[c] = b.cols[c].Emit(b.out.Cols[c], b.pos, n)
	}
	b.out.Len, b.out.Sel = n, nil
	b.pos += n
	return b.out, nil
}

// Discard returns an operator that runs in to completion on its first
// pull and yields no rows: a statement that does not end with RETURN.
func Discard(in Operator) Operator { return &discard{in: in} }

type discard struct{ in Operator }

func (d *discard) Next() (*vector.Batch, error) {
	for {
		b, err := d.in.Next()
		if err != nil || b == nil {
			return nil, err
		}
	}
}
