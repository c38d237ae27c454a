package expr

import (
	"sync"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Boxed values shared between rows. A kernel whose output stays generic
// (a date's field, a truncated date: temporal_kernels.go) would box a
// value a row, an allocation each; boxed values are immutable, so rows
// of one value can share one box.

// boxedIntCount bounds the INTEGERs boxed once for the process: the
// fields of a date (a year up to 4095, a month, a day of the year …).
const boxedIntCount = 1 << 12

var boxedInts = sync.OnceValue(func() []vector.Value {
	t := make([]vector.Value, boxedIntCount)
	for i := range t {
		t[i] = int64(i)
	}
	return t
})

// boxInt is x as a generic value, from the shared table when it is in it.
func boxInt(tbl []vector.Value, x int64) vector.Value {
	if uint64(x) < uint64(len(tbl)) {
		return tbl[x]
	}
	return x
}

// dateBoxes remembers the box of recently made dates, by the day number's
// low bits: the truncations of a column's dates to a month or a year are
// few, and each is then boxed once rather than once a row.
type dateBoxes struct {
	days  [512]int64
	boxes [512]vector.Value
}

// box is d as a generic value, the remembered box when there is one.
func (c *dateBoxes) box(d temporal.Date) vector.Value {
	k := uint64(d.Days) % uint64(len(c.days))
	if c.boxes[k] != nil && c.days[k] == d.Days {
		return c.boxes[k]
	}
	v := vector.Value(d)
	c.days[k], c.boxes[k] = d.Days, v
	return v
}
