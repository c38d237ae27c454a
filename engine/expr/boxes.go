package expr

import (
	"math/bits"
	"sync"
	"unsafe"

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

// dateBoxes remembers the box of recently made dates, by the day number
// over the spacing of the dates made (a truncation's unit: the starts of
// months are at least 28 days apart), so that the few dates of a
// column's truncations to a month or a year are each boxed once rather
// than once a row: 1024 months' starts are remembered at once, 85
// years. By the day number, the 657 months' starts of a column of 55
// years' dates collided in 512 slots, and boxing took a quarter of the
// truncation's time in a profile.
type dateBoxes struct {
	inverse uint64 // 2^64 / the spacing: a day number's slot by a multiplication
	days    [1024]int64
	boxes   [1024]vector.Value
}

// newDateBoxes remembers dates spaced at least spacing days apart.
func newDateBoxes(spacing uint64) *dateBoxes {
	if spacing <= 1 {
		return &dateBoxes{inverse: 0} // by the day number itself (box)
	}
	return &dateBoxes{inverse: ^uint64(0) / spacing}
}

// box is d as a generic value, the remembered box when there is one.
func (c *dateBoxes) box(d temporal.Date) vector.Value {
	k := uint64(d.Days)
	if c.inverse != 0 {
		k, _ = bits.Mul64(k, c.inverse) // about k / spacing: a slot shared by two dates only costs a box
	}
	k %= uint64(len(c.days))
	if c.boxes[k] != nil && c.days[k] == d.Days {
		return c.boxes[k]
	}
	v := vector.Value(d)
	c.days[k], c.boxes[k] = d.Days, v
	return v
}

// A generic value holding a string (or a list) is a type word and a
// pointer to the string's header (the slice's); converting a string to
// one allocates that header on the heap, 16 bytes (24 for a slice).
// boxAll boxes a batch's values with their headers held in one array
// instead: each value points into the array, as the runtime's own box
// would point into its allocation, and the array is never written again
// once boxed (a boxed value is immutable). A date (temporal.Date, one
// word that is not a pointer) is boxed behind a pointer as well. The
// array lives as long as
// any value taken from it.
//
// BenchmarkExpr/string-split (three parts a row): the box of each part
// and of each row's list cost about half of the 100 ns a row.

// eface is the layout of an empty interface value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// boxAll sets dst[i] to vals[i] as a generic value, without an
// allocation; vals must not be written afterwards. T is a string or a
// list ([]vector.Value): a type whose values the runtime boxes behind a
// pointer.
func boxAll[T string | []vector.Value | temporal.Date](dst []vector.Value, vals []T) {
	var zero vector.Value = *new(T) // the zero value is boxed without an allocation
	typ := (*eface)(unsafe.Pointer(&zero)).typ
	dst = dst[:len(vals)]
	for i := range vals {
		e := (*eface)(unsafe.Pointer(&dst[i]))
		e.typ, e.data = typ, unsafe.Pointer(&vals[i])
	}
}

// typeWord is T's type word in a generic value.
func typeWord[T any]() unsafe.Pointer {
	var zero vector.Value = *new(T) // the zero value is boxed without an allocation
	return (*eface)(unsafe.Pointer(&zero)).typ
}

// box sets *at to the generic value of type word typ whose data is at
// data (a value of that type, never written again).
func box(at *vector.Value, typ, data unsafe.Pointer) {
	x := (*eface)(unsafe.Pointer(at))
	x.typ, x.data = typ, data
}

// numberGroup holds the INTEGER and FLOAT elements of a group of list
// literals' lists (builderEval.lists), each array made at its first use.
type numberGroup struct {
	ints   []int64
	floats []float64
}

var (
	intTypeWord   = typeWord[int64]()
	floatTypeWord = typeWord[float64]()
)

// int stores x at index i of the group's INTEGERs (k elements a list)
// and returns where.
func (g *numberGroup) int(k, i int, x int64) *int64 {
	if g.ints == nil {
		g.ints = make([]int64, listGroup*k)
	}
	g.ints[i] = x
	return &g.ints[i]
}

// float is int for FLOATs.
func (g *numberGroup) float(k, i int, x float64) *float64 {
	if g.floats == nil {
		g.floats = make([]float64, listGroup*k)
	}
	g.floats[i] = x
	return &g.floats[i]
}
