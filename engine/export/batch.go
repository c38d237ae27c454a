package export

import (
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// batch holds up to Options.BatchRows rows of one file between the
// snapshot and the file: the key column (nodes) or the two endpoint
// columns (relationships), and per property column its present values,
// typed, and a definition level per row (1 present, 0 null), as Parquet
// takes them. An export's memory is a batch per file.
type batch struct {
	keys [2][]int64
	cols []colBuf
	rows int
}

type colBuf struct {
	i64 []int64 // INTEGER, DATE (days), LOCAL TIME (ns), timestamps (the column's unit)
	f64 []float64
	b   []bool
	s   []string
	def []int16
}

func newBatch(g *group) *batch { return &batch{cols: make([]colBuf, len(g.cols))} }

func (b *batch) reset() {
	b.keys[0], b.keys[1] = b.keys[0][:0], b.keys[1][:0]
	for i := range b.cols {
		c := &b.cols[i]
		c.i64, c.f64, c.b, c.s, c.def = c.i64[:0], c.f64[:0], c.b[:0], c.s[:0], c.def[:0]
	}
	b.rows = 0
}

// add appends one value (nil: null) of column c at position i.
func (b *batch) add(i int, c *column, v vector.Value) {
	cb := &b.cols[i]
	if v == nil {
		cb.def = append(cb.def, 0)
		return
	}
	cb.def = append(cb.def, 1)
	switch c.kind {
	case kindInt:
		cb.i64 = append(cb.i64, v.(int64))
	case kindFloat:
		cb.f64 = append(cb.f64, v.(float64))
	case kindBool:
		cb.b = append(cb.b, v.(bool))
	case kindString:
		cb.s = append(cb.s, v.(string))
	case kindDate:
		cb.i64 = append(cb.i64, v.(temporal.Date).Days)
	case kindLocalTime:
		cb.i64 = append(cb.i64, v.(temporal.LocalTime).Nanos)
	case kindLocalDateTime, kindDateTime:
		cb.i64 = append(cb.i64, c.timestamp(v))
	}
}

// sink writes batches into one file of a format.
type sink interface {
	write(b *batch) error
	close() error
}
