package rowstore

import (
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// Chunks keeps the rows of an operator that must read its whole input
// before it can use them in any order (a sort), in chunks of chunkRows
// rows that never grow, and joins them into one column
// each at the end, in arrays of the exact size (Columns).
//
// Rows kept in arrays that grow leave each array they outgrow behind as
// garbage, and an array larger than any freed one cannot reuse their
// pages: a sort of 20 million strings growing its columns by half took
// the process to 1.6 times max_memory_per_query at the limit, though its
// charge was honest. Chunks leave no garbage while the rows come in, so
// the statement fails at its limit holding what it was charged, and the
// join holds the chunks and the columns at once only for as long as it
// copies, each charged.
type Chunks struct {
	chunks []rowChunk
	rows   int
	// slots is what the chunks' arrays are charged (given back by
	// columns); payload what their values hold beyond (it stays with
	// the rows).
	slots, payload int64
	idx            []int32
}

// rowChunk is up to a chunk's worth of consecutive rows: one vector a
// column, all of one type for the chunk (a batch whose column has another
// type starts a new chunk).
type rowChunk struct {
	cols    []*vector.Vector
	n, size int
}

// chunkRows is the rows of a chunk: batches of a few rows (a selective
// filter's, or every batch under the batch2 build tag) share one.
const chunkRows = 1024

// vectorOverhead is a chunk vector's header (and its share of the chunk's
// own), charged with its arrays.
const vectorOverhead = 200

// Add copies b's selected rows in, charging m first.
func (k *Chunks) Add(m *memory.Tracker, b *vector.Batch) error {
	n := b.Rows()
	if n == 0 {
		return nil
	}
	var payload int64
	for _, v := range b.Cols {
		payload += memory.PayloadBytes(v, b.Sel, b.Len)
	}
	k.payload += payload
	if err := m.Charge(payload); err != nil {
		return err
	}
	idx := b.Sel
	if idx == nil {
		k.idx = vector.Identity(k.idx, b.Len)
		idx = k.idx
	}
	for len(idx) > 0 {
		c, err := k.chunkFor(m, b)
		if err != nil {
			return err
		}
		take := min(len(idx), chunkRoom(c))
		for i, v := range b.Cols {
			vector.CopyRows(c.cols[i], c.n, v, idx[:take])
		}
		c.n += take
		k.rows += take
		idx = idx[take:]
	}
	return nil
}

// chunkFor returns the last chunk when it has room for rows of b's
// column types, else a new chunk, charged before it is allocated.
func (k *Chunks) chunkFor(m *memory.Tracker, b *vector.Batch) (*rowChunk, error) {
	if l := len(k.chunks); l > 0 {
		c := &k.chunks[l-1]
		fits := chunkRoom(c) > 0
		for i, v := range b.Cols {
			fits = fits && c.cols[i].Type == v.Type
		}
		if fits {
			return c, nil
		}
	}
	size := max(chunkRows, b.Rows())
	var bytes int64
	for _, v := range b.Cols {
		bytes += chunkVectorBytes(v.Type, size)
	}
	k.slots += bytes
	if err := m.Charge(bytes); err != nil {
		return nil, err
	}
	c := rowChunk{cols: make([]*vector.Vector, len(b.Cols)), size: size}
	for i, v := range b.Cols {
		c.cols[i] = vector.New(v.Type, size)
	}
	k.chunks = append(k.chunks, c)
	return &k.chunks[len(k.chunks)-1], nil
}

// chunkRoom is how many more rows c takes.
func chunkRoom(c *rowChunk) int { return c.size - c.n }

// chunkVectorBytes is what a chunk vector of n rows of type t takes: its
// array, a validity bitmap (made at a row's first null) and its header.
func chunkVectorBytes(t vector.Type, n int) int64 {
	return int64(n)*memory.SlotBytes(t) + 8*int64((n+63)/64) + vectorOverhead
}

// Columns joins the chunks into ncols columns of exactly the rows kept,
// each charged before it is allocated, and gives back the chunks. A
// column is typed when every chunk holding a value in it has that type,
// generic otherwise, and of no type (vector.Null) when it holds only
// nulls, as Column.Push would have made it.
func (k *Chunks) Columns(m *memory.Tracker, ncols int) ([]Column, error) {
	cols := make([]Column, ncols)
	defer func() {
		// The chunks are garbage now, or on failure with the statement.
		m.Release(k.slots)
		k.chunks, k.slots = nil, 0
	}()
	for i := range cols {
		t := vector.Null
		for _, c := range k.chunks {
			v := c.cols[i]
			if v.Type == vector.Null || v.Valid.CountNulls(c.n) == c.n {
				continue
			}
			switch t {
			case vector.Null:
				t = v.Type
			case v.Type:
			default:
				t = vector.Any
			}
		}
		bytes := chunkVectorBytes(t, k.rows)
		if err := m.Charge(bytes); err != nil {
			m.Release(bytes)
			return nil, err
		}
		k.payload += bytes // charged with the rows from now on
		out := vector.New(t, k.rows)
		at := 0
		var boxed int64
		for ci := range k.chunks {
			c := &k.chunks[ci]
			boxed += joinChunk(out, at, c.cols[i], c.n)
			c.cols[i] = nil // its column is copied: garbage
			at += c.n
		}
		cols[i] = Column{V: out, N: k.rows}
		k.payload += boxed
		if err := m.Charge(boxed); err != nil { // values boxed into a generic column
			return nil, err
		}
	}
	return cols, nil
}

// joinChunk copies the n rows of chunk vector src into out from row at,
// and returns the bytes of the values it had to box (a typed chunk in a
// generic column).
func joinChunk(out *vector.Vector, at int, src *vector.Vector, n int) int64 {
	var boxed int64
	switch {
	case out.Type == vector.Null:
		return 0 // the rows are null already
	case src.Type == out.Type:
		switch out.Type {
		case vector.Bool:
			copy(out.Bools[at:], src.Bools[:n])
		case vector.Int64:
			copy(out.I64[at:], src.I64[:n])
		case vector.Float64:
			copy(out.F64[at:], src.F64[:n])
		case vector.String:
			copy(out.Str[at:], src.Str[:n])
		case vector.Node, vector.Rel:
			copy(out.IDs[at:], src.IDs[:n])
		case vector.Any:
			copy(out.Any[at:], src.Any[:n])
		}
		if src.Valid == nil {
			return 0
		}
	case out.Type == vector.Any && src.Type != vector.Null:
		for r := 0; r < n; r++ {
			if !src.IsNull(r) {
				out.Any[at+r] = src.Get(r)
				boxed += memory.RowPayloadBytes(out, at+r) - memory.RowPayloadBytes(src, r)
			}
		}
	}
	for r := 0; r < n; r++ {
		if src.IsNull(r) {
			out.SetNull(at + r)
		}
	}
	return boxed
}

// Release gives back everything charged: the rows are dropped.
func (k *Chunks) Release(m *memory.Tracker) {
	m.Release(k.slots + k.payload)
	k.chunks, k.slots, k.payload = nil, 0, 0
}
