package export

import (
	"fmt"

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
	rep []int16 // a LIST column's repetition levels, a level per element (or per null or empty list)
}

func newBatch(g *group) *batch { return &batch{cols: make([]colBuf, len(g.cols))} }

func (b *batch) reset() {
	b.keys[0], b.keys[1] = b.keys[0][:0], b.keys[1][:0]
	for i := range b.cols {
		c := &b.cols[i]
		c.i64, c.f64, c.b, c.s, c.def, c.rep = c.i64[:0], c.f64[:0], c.b[:0], c.s[:0], c.def[:0], c.rep[:0]
	}
	b.rows = 0
}

// add appends one value (nil: null) of column c at position i.
func (b *batch) add(i int, c *column, v vector.Value) {
	cb := &b.cols[i]
	if c.kind == kindList {
		cb.addList(c, v)
		return
	}
	if v == nil {
		cb.def = append(cb.def, 0)
		return
	}
	cb.def = append(cb.def, 1)
	cb.scalar(c, c.kind, v)
}

// addList appends a LIST value as Parquet's levels for an OPTIONAL list
// of OPTIONAL elements: definition 0 a null list, 1 an empty one, 2 a
// null element, 3 an element; repetition 0 starts the row's list.
func (cb *colBuf) addList(c *column, v vector.Value) {
	l, _ := v.([]vector.Value)
	switch {
	case v == nil:
		cb.def, cb.rep = append(cb.def, 0), append(cb.rep, 0)
		return
	case len(l) == 0:
		cb.def, cb.rep = append(cb.def, 1), append(cb.rep, 0)
		return
	}
	for k, e := range l {
		cb.rep = append(cb.rep, min(int16(k), 1))
		if e == nil {
			cb.def = append(cb.def, 2)
			continue
		}
		cb.def = append(cb.def, 3)
		cb.scalar(c, c.elem, e)
	}
}

// scalar appends a present value of kind k to its typed buffer.
func (cb *colBuf) scalar(c *column, k kind, v vector.Value) {
	switch k {
	case kindInt:
		cb.i64 = append(cb.i64, v.(int64))
	case kindFloat:
		cb.f64 = append(cb.f64, v.(float64))
	case kindBool:
		cb.b = append(cb.b, v.(bool))
	case kindString, kindJSON:
		cb.s = append(cb.s, v.(string))
	case kindDate:
		cb.i64 = append(cb.i64, v.(temporal.Date).Days)
	case kindLocalTime:
		cb.i64 = append(cb.i64, v.(temporal.LocalTime).Nanos)
	case kindLocalDateTime, kindDateTime:
		cb.i64 = append(cb.i64, c.timestamp(v))
	case kindZonedDateTime, kindTime:
		cb.s = append(cb.s, v.(fmt.Stringer).String())
	case kindDuration:
		cb.s = append(cb.s, durationText(v.(temporal.Duration)))
	}
}

// sink writes batches into one file of a format.
type sink interface {
	write(b *batch) error
	close() error
}
