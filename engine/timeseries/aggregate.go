// Package timeseries owns the time-series procedure quiver.ts.aggregate
// (docs/time-series.md): per-bucket count, sum, avg, min and max of a
// value property over the elements of a label or a relationship type
// whose time property falls in [from, to), read from the property columns
// a batch at a time, with optional gap filling. Its bucket grid is
// quiver.ts.bucket's (engine/functions).
package timeseries

import (
	"fmt"
	"unsafe"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// MaxBuckets bounds the buckets of one call's range (docs/limits.md): the
// per-bucket state and the rows are held in memory.
const MaxBuckets = 1 << 20

// batchSize is the rows gathered at a time; tests may shrink it.
var batchSize = vector.Capacity

// bucketBytes is what one bucket holds: its state and, at the end, its
// row of six values.
const bucketBytes = int64(unsafe.Sizeof(state{})) + 6*16 + 24

var outputs = []procs.Field{
	{Name: "bucket", Type: "ANY"}, {Name: "count", Type: "INTEGER"}, {Name: "sum", Type: "NUMBER"},
	{Name: "avg", Type: "FLOAT"}, {Name: "min", Type: "NUMBER"}, {Name: "max", Type: "NUMBER"},
}

// Register makes quiver.ts.aggregate callable through reg.
func Register(reg *procs.Registry) error {
	p := &procs.Procedure{Signature: procs.Signature{Name: "quiver.ts.aggregate",
		Inputs: []procs.Field{{Name: "options", Type: "MAP"}}, Outputs: outputs, Requires: procs.PrivRead}, Stream: aggregateStream}
	if err := reg.Register(p); err != nil {
		return fmt.Errorf("cannot register %s: %w", p.Name, err)
	}
	return nil
}

// state is one bucket's running aggregates. Integers sum as integers
// until a FLOAT joins them (as sum() does); min and max are kept apart
// for the two numeric types and compared at the end.
type state struct {
	rows       int64 // elements in the bucket, with a value or not
	count      int64 // values (elements when there is no value property)
	isum       int64
	fsum       float64
	float      bool // a FLOAT joined the sum
	nInt, nFlt int64
	minI, maxI int64
	minF, maxF float64
}

// aggregateStream runs the call and hands its rows out a batch at a time;
// the memory charged for the buckets is held until the stream closes.
func aggregateStream(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	var charged int64
	rows, err := aggregate(c, args, &charged)
	if err != nil {
		if charged != 0 {
			c.Mem.Release(charged)
		}
		return nil, err
	}
	return &rowStream{rows: rows, release: func() {
		if charged != 0 {
			c.Mem.Release(charged)
		}
	}}, nil
}

// rowStream hands out the result's rows.
type rowStream struct {
	rows    [][]vector.Value
	next    int
	release func()
}

func (s *rowStream) Fill(cols []*vector.Vector, at, n int) (int, error) {
	k := 0
	for ; k < n && s.next < len(s.rows); k, s.next = k+1, s.next+1 {
		for j, col := range cols {
			if col != nil {
				col.Set(at+k, s.rows[s.next][j])
			}
		}
	}
	return k, nil
}

func (s *rowStream) Close() {
	s.rows = nil
	if s.release != nil {
		s.release()
		s.release = nil
	}
}

// aggregate computes the rows, charging the buckets' memory to c.Mem
// (the amount in *charged, for the caller to release).
func aggregate(c *procs.Context, args []vector.Value, charged *int64) ([][]vector.Value, error) {
	tx, ok := c.Reader.(*storage.Tx)
	if !ok {
		return nil, errs.Internal("quiver.ts.aggregate: the query reads no transaction")
	}
	o, err := parseOptions(args[0])
	if err != nil {
		return nil, err
	}
	k0 := o.bucket.Index(o.lo)
	k1 := o.bucket.Index(o.hi)
	if s, err := o.bucket.Start(k1); err == nil && s == o.hi {
		k1-- // to is excluded: its bucket holds nothing when it starts there
	}
	n := k1 - k0 + 1
	if n > MaxBuckets || n <= 0 {
		return nil, errs.DataCode(errs.CodeInvalidParam, "quiver.ts.aggregate: the range [from, to) holds more than %d buckets of the option bucket's width; narrow it or widen the buckets", MaxBuckets)
	}
	if c.Mem != nil {
		charge := n * bucketBytes
		if err := c.Mem.Charge(charge); err != nil {
			c.Mem.Release(charge)
			return nil, err
		}
		*charged = charge
	}
	a := &scan{o: o, k0: k0, states: make([]state, n), stop: func() error { return errs.Stopped(c.Ctx) }}
	timeKey, haveTime := c.Catalog.LookupKey(o.time)
	valueKey, haveValue := c.Catalog.LookupKey(o.value)
	if !haveTime || (o.value != "" && !haveValue) {
		return a.rows(), nil // no element has the property: every bucket is empty
	}
	if o.label != "" {
		l, ok := c.Catalog.LookupLabel(o.label)
		if !ok {
			return a.rows(), nil
		}
		err = a.nodes(tx, tx.LabelNodes(l), timeKey, valueKey)
	} else {
		t, ok := c.Catalog.LookupType(o.typ)
		if !ok {
			return a.rows(), nil
		}
		err = a.rels(tx, t, timeKey, valueKey)
	}
	if err != nil {
		return nil, err
	}
	return a.rows(), nil
}

// scan is one call's accumulation.
type scan struct {
	o      *options
	k0     int64
	states []state
	stop   func() error
}

// add folds one batch of n rows whose times are gathered (boxed:
// temporal values are stored as generic values): the rows in range are
// counted in their buckets, then their values alone are gathered, typed,
// and folded (batch.values).
func (a *scan) add(b *batch, n int) error {
	o, st := a.o, a.states
	times := b.times
	b.sel = b.sel[:0]
	for r := range n {
		tv := times.Any[r]
		if tv == nil || (times.Valid != nil && times.IsNull(r)) {
			continue
		}
		l, ok := o.localOf(tv)
		if !ok || less(l, o.lo) || !less(l, o.hi) {
			continue
		}
		k := int32(o.bucket.Index(l) - a.k0)
		s := &st[k]
		s.rows++
		if !b.hasValue {
			s.count++
			continue
		}
		b.sel = append(b.sel, int32(r))
		b.idx[r] = k
	}
	if len(b.sel) == 0 || (b.ints == nil && b.floats == nil) {
		return nil
	}
	return a.values(b)
}

// values gathers and folds the values of the selected rows: of a column
// of one numeric type in one typed loop; of a mixed column the FLOATs
// first, then the INTEGERs of the rows that had none, then a lookup of
// the rows that had neither, to tell a missing value from one that is not
// a number.
func (a *scan) values(b *batch) error {
	st, sel, idx := a.states, b.sel, b.idx
	switch {
	case !b.mixed && b.ints != nil:
		ints := b.ints
		b.gatherValues(ints, sel)
		for _, r := range sel {
			if ints.Valid.IsValid(int(r)) {
				if err := st[idx[r]].addInt(ints.I64[r]); err != nil {
					return err
				}
			}
		}
		return nil
	case !b.mixed:
		floats := b.floats
		b.gatherValues(floats, sel)
		for _, r := range sel {
			if floats.Valid.IsValid(int(r)) {
				st[idx[r]].addFloat(floats.F64[r])
			}
		}
		return nil
	}
	floats, ints := b.floats, b.ints
	b.gatherValues(floats, sel)
	rest := b.rest[:0]
	for _, r := range sel {
		if floats.Valid.IsValid(int(r)) {
			st[idx[r]].addFloat(floats.F64[r])
		} else {
			rest = append(rest, r)
		}
	}
	b.rest = rest
	if len(rest) == 0 {
		return nil
	}
	b.gatherValues(ints, rest)
	for _, r := range rest {
		if ints.Valid.IsValid(int(r)) {
			if err := st[idx[r]].addInt(ints.I64[r]); err != nil {
				return err
			}
			continue
		}
		if v := b.lookup(b.idv.IDs[r]); v != nil {
			return errs.Data("quiver.ts.aggregate: the value of %s %d is %s, not a number", b.kind, b.idv.IDs[r], functions.TypeName(v))
		}
	}
	return nil
}

func (s *state) addInt(v int64) error {
	if s.nInt == 0 || v < s.minI {
		s.minI = v
	}
	if s.nInt == 0 || v > s.maxI {
		s.maxI = v
	}
	s.nInt++
	s.count++
	if s.float {
		s.fsum += float64(v)
		return nil
	}
	sum := s.isum + v
	if (v > 0 && sum < s.isum) || (v < 0 && sum > s.isum) {
		return errs.DataCode(errs.CodeOverflow, "quiver.ts.aggregate: a bucket's integer sum leaves the INTEGER range")
	}
	s.isum = sum
	return nil
}

func (s *state) addFloat(v float64) {
	// NaN is the greatest FLOAT, as in ORDER BY and min()/max().
	if s.nFlt == 0 || functions.CmpTotalFloat(v, s.minF) < 0 {
		s.minF = v
	}
	if s.nFlt == 0 || functions.CmpTotalFloat(v, s.maxF) > 0 {
		s.maxF = v
	}
	s.nFlt++
	s.count++
	if !s.float {
		s.float, s.fsum = true, float64(s.isum)
	}
	s.fsum += v
}
