package vector

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
)

// Pool lends the vectors and row buffers of one statement and takes them
// all back when the statement ends (Close), for the next statement to
// reuse. A point query builds a handful of operators, each holding a
// vector or two of Capacity rows; allocating and then collecting them was
// half of such a query's execution time (6 of its 8 KB for a 10-row
// answer), so they come from here instead.
//
// The statement's operators take their vectors through the pool while they
// are built or run and never give them back one by one: Close recycles
// everything lent at once, so an operator needs no Close of its own. A
// vector the pool lends is exactly what New(t, Capacity) would return
// (zeroed, no validity bitmap), so an operator cannot tell the
// difference; row buffers come as the last statement left them.
//
// A nil *Pool is valid and allocates plainly: contexts without a pool
// (parallel workers) and code outside a statement use the same calls.
//
// Bounds: a statement borrows at most maxLent vectors and buffers from
// its pool (an operator rebuilt per input batch, as under OPTIONAL MATCH,
// allocates plainly past that, and the collector frees those as before),
// and a pool keeps at most maxFree of each kind for the next statement.
//
// A Pool is used by one goroutine at a time.
type Pool struct {
	lent  []lent
	free  [Any + 1][]*Vector
	i32   [][]int32 // free []int32 buffers of capacity Capacity
	u32   [][]uint32
	nlent int // vectors and buffers lent since the last Close
	// poisoned is set once Close poisoned instead of clearing: lending
	// then clears.
	poisoned bool
}

// lent is a vector as the pool handed it out: the operator may replace
// the vector's slice (a column it points at storage, say), so the pool
// recycles the array it lent, never what the vector holds at Close.
type lent struct {
	v    *Vector
	orig Vector
	i32  []int32
	u32  []uint32
}

const (
	// maxLent bounds what one statement borrows; past it the pool
	// allocates plainly.
	maxLent = 256
	// maxFree bounds the vectors of one type, and the buffers of one
	// kind, a pool keeps between statements: at most 32 × 16 KB for
	// the widest types.
	maxFree = 32
)

// poison is set in test binaries: Close fills what it takes back with
// values no query produces, so that a batch read after its statement
// ended (a result encoder holding a batch past Next, a cursor kept open)
// answers visibly wrong in the suites instead of silently right until
// the vector is lent again.
var poison atomic.Bool

func init() { poison.Store(testing.Testing()) }

// SetPoison turns the poisoning of recycled vectors on or off and
// returns the previous setting. Benchmarks that measure what a statement
// costs in production turn it off: poisoning writes every recycled row.
func SetPoison(on bool) bool { return poison.Swap(on) }

// Poison values written into recycled vectors in test binaries.
const (
	PoisonInt    = int64(-0x5ea1_dead_beef)
	PoisonString = "\x00recycled vector"
	PoisonID     = uint64(math.MaxUint64 - 0xdead)
)

var pools = sync.Pool{New: func() any { return new(Pool) }}

// GetPool returns a pool for one statement; give it back with Close.
func GetPool() *Pool { return pools.Get().(*Pool) }

// New returns a vector of type t with Capacity rows, as New(t, Capacity).
func (p *Pool) New(t Type) *Vector {
	if p == nil || t == Null || t > Any || p.nlent >= maxLent {
		return New(t, Capacity)
	}
	p.nlent++
	var v *Vector
	if free := p.free[t]; len(free) > 0 {
		v = free[len(free)-1]
		p.free[t] = free[:len(free)-1]
		if p.poisoned {
			v.clear()
		}
	} else {
		v = New(t, Capacity)
	}
	p.lent = append(p.lent, lent{v: v, orig: *v})
	return v
}

// Reuse is vector.Reuse drawing a new vector from the pool.
func (p *Pool) Reuse(out *Vector, t Type) *Vector {
	if out != nil && out.Type == t {
		out.ResetNulls()
		return out
	}
	return p.New(t)
}

// Batch returns a batch with one pooled vector per type, as NewBatch.
func (p *Pool) Batch(types ...Type) *Batch {
	b := &Batch{Cols: make([]*Vector, len(types))}
	for i, t := range types {
		b.Cols[i] = p.New(t)
	}
	return b
}

// Int32s returns an empty []int32 of capacity Capacity (a selection or a
// row-index buffer, appended to). What lies past its length is left from
// an earlier statement (poison in test binaries): a caller that needs
// zeros makes its own.
func (p *Pool) Int32s() []int32 {
	if p == nil || p.nlent >= maxLent {
		return make([]int32, 0, Capacity)
	}
	p.nlent++
	var s []int32
	if n := len(p.i32); n > 0 {
		s, p.i32 = p.i32[n-1], p.i32[:n-1]
	} else {
		s = make([]int32, 0, Capacity)
	}
	p.lent = append(p.lent, lent{i32: s})
	return s
}

// Uint32s returns a []uint32 of Capacity elements for a bitmap iterator
// to fill; its contents are left from an earlier statement.
func (p *Pool) Uint32s() []uint32 {
	if p == nil || p.nlent >= maxLent {
		return make([]uint32, Capacity)
	}
	p.nlent++
	var s []uint32
	if n := len(p.u32); n > 0 {
		s, p.u32 = p.u32[n-1], p.u32[:n-1]
	} else {
		s = make([]uint32, Capacity)
	}
	p.lent = append(p.lent, lent{u32: s})
	return s
}

// Close takes back everything the statement borrowed and returns the
// pool for another statement. Nothing lent may be read afterwards: the
// statement's batches end with it. Close on a nil pool does nothing.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	poisoning := poison.Load()
	p.poisoned = p.poisoned || poisoning
	for i := range p.lent {
		l := &p.lent[i]
		switch {
		case l.v != nil:
			v, t := l.v, l.orig.Type
			*v = l.orig
			v.Valid = nil
			if poisoning {
				v.poison()
			}
			if len(p.free[t]) < maxFree {
				if !poisoning {
					v.clear()
				}
				p.free[t] = append(p.free[t], v)
			}
		case l.i32 != nil:
			s := l.i32[:cap(l.i32)]
			if poisoning {
				for k := range s {
					s[k] = math.MaxInt32
				}
			}
			if len(p.i32) < maxFree {
				p.i32 = append(p.i32, s[:0])
			}
		case l.u32 != nil:
			if poisoning {
				for k := range l.u32 {
					l.u32[k] = math.MaxUint32
				}
			}
			if len(p.u32) < maxFree {
				p.u32 = append(p.u32, l.u32)
			}
		}
		*l = lent{}
	}
	p.lent = p.lent[:0]
	p.nlent = 0
	pools.Put(p)
}

// clear zeroes v's rows, as New leaves them; strings and values are
// dropped so that a pooled vector keeps nothing alive.
func (v *Vector) clear() {
	clear(v.Bools)
	clear(v.I64)
	clear(v.F64)
	clear(v.Str)
	clear(v.IDs)
	clear(v.Any)
}

// poison fills v's rows with the poison values (test binaries only).
func (v *Vector) poison() {
	for i := range v.Bools {
		v.Bools[i] = true
	}
	for i := range v.I64 {
		v.I64[i] = PoisonInt
	}
	for i := range v.F64 {
		v.F64[i] = math.NaN()
	}
	for i := range v.Str {
		v.Str[i] = PoisonString
	}
	for i := range v.IDs {
		v.IDs[i] = PoisonID
	}
	for i := range v.Any {
		v.Any[i] = PoisonString
	}
}
