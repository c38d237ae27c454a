package vector

// Batch is a set of equally long column vectors: the unit every operator
// consumes and produces. Len rows are physically present in each column;
// when Sel is not nil only the rows it lists (ascending, each < Len) are
// logically in the batch. A filter therefore narrows Sel instead of
// copying columns.
type Batch struct {
	Cols []*Vector
	Len  int
	Sel  []int32
}

// NewBatch returns a batch with one vector of Capacity rows per type.
func NewBatch(types ...Type) *Batch {
	b := &Batch{Cols: make([]*Vector, len(types))}
	for i, t := range types {
		b.Cols[i] = New(t, Capacity)
	}
	return b
}

// Rows is the number of logical rows.
func (b *Batch) Rows() int {
	if b.Sel != nil {
		return len(b.Sel)
	}
	return b.Len
}

// Row maps logical row i to its physical position.
func (b *Batch) Row(i int) int {
	if b.Sel != nil {
		return int(b.Sel[i])
	}
	return i
}

// Reset empties the batch for reuse, keeping its vectors.
func (b *Batch) Reset() {
	b.Len = 0
	b.Sel = nil
	for _, c := range b.Cols {
		c.ResetNulls()
	}
}
