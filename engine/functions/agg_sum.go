package functions

import (
	"math"
	"slices"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// AggSum is sum(x): the sum of the non-null numbers, or of the
// durations, of each group (0 over none). A group sums numbers or
// durations, whichever its first value is; the other kind after it is an
// error, and so is an integer sum that leaves the int64 range. Integers
// sum as integers until a FLOAT joins them.
var AggSum = registerAgg(Agg{
	Name: "sum", Spelling: "sum", Params: 1,
	Sig:            "sum(x)",
	Doc:            "sum of the non-null numbers",
	Type:           fixedType(vector.Any),
	New:            func(env AggEnv) AggState { return newSumState(env, "sum", false) },
	FromSummaries:  sumFromSummaries,
	FloatSummaries: true,
})

// sumState is the state of sum and avg (agg_avg.go): per group the count
// of values and their sum, kept as an integer sum, a float sum (from the
// first FLOAT) or a duration sum (from a first duration).
type sumState struct {
	counts
	name  string // for messages
	avg   bool
	isum  []int64             // integer sums
	fsum  []float64           // float sums
	float []bool              // group's sum has met a FLOAT
	dsum  []temporal.Duration // duration sums
	dur   []bool              // group sums durations (its first value was one)
}

func newSumState(env AggEnv, name string, avg bool) *sumState {
	return &sumState{counts: counts{env: env}, name: name, avg: avg}
}

// Grow makes room for n groups. The float and duration state exist only
// once a group met a FLOAT or a duration: integer sums over many groups
// never pay for them.
func (a *sumState) Grow(n int) {
	a.grow(n)
	a.isum = a.env.GrowInts(a.isum, n)
	if a.float != nil {
		a.fsum = memory.Grow(a.fsum, n)
		a.float = memory.Grow(a.float, n)
	}
	if a.dur != nil {
		a.dsum = memory.Grow(a.dsum, n)
		a.dur = memory.Grow(a.dur, n)
	}
}

func (a *sumState) Update(b *vector.Batch, args []*vector.Vector, group []int32) error {
	v := args[0]
	switch v.Type {
	case vector.Int64:
		return a.sumInts(b, v, group)
	case vector.Float64:
		return a.sumFloats(b, v, group)
	}
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.IsNull(r) {
			continue
		}
		if err := a.add(group[r], v, r); err != nil {
			return err
		}
	}
	return nil
}

// sumInts is the typed loop of add over an integer vector. A group that
// sums durations meets its error in add.
func (a *sumState) sumInts(b *vector.Batch, v *vector.Vector, group []int32) error {
	if b.Sel == nil && v.Valid == nil && len(a.dur) == 0 {
		return a.sumDenseInts(v.I64[:b.Len], group[:b.Len])
	}
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.Valid != nil && v.IsNull(r) {
			continue
		}
		g := group[r]
		if a.isDur(g) {
			if err := a.add(g, v, r); err != nil {
				return err
			}
			continue
		}
		a.count[g]++
		x := v.I64[r]
		s := a.isum[g] + x
		if (a.isum[g]^s)&(x^s) < 0 {
			return a.overflow()
		}
		a.isum[g] = s
	}
	return nil
}

// sumDenseInts is sumInts over a dense batch without nulls, while no
// group has summed a duration: one loop of loads and adds, the overflow
// test folded into a flag read once at the end (Q2's avg(p.age) over 1M
// rows spent as long in the general loop as in gathering the values).
func (a *sumState) sumDenseInts(xs []int64, group []int32) error {
	count, isum := a.count, a.isum
	var ovf int64
	for r, x := range xs {
		g := group[r]
		count[g]++
		s := isum[g] + x
		ovf |= (isum[g] ^ s) & (x ^ s)
		isum[g] = s
	}
	if ovf < 0 {
		return a.overflow()
	}
	return nil
}

// sumFloats is the typed loop of add over a float vector.
func (a *sumState) sumFloats(b *vector.Batch, v *vector.Vector, group []int32) error {
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.Valid != nil && v.IsNull(r) {
			continue
		}
		g := group[r]
		if a.isDur(g) {
			if err := a.add(g, v, r); err != nil {
				return err
			}
			continue
		}
		a.count[g]++
		a.addFloat(g, v.F64[r])
	}
	return nil
}

func (a *sumState) Add(g int32, args []*vector.Vector, r int) error { return a.add(g, args[0], r) }

// add folds row r of v into group g.
func (a *sumState) add(g int32, v *vector.Vector, r int) error {
	a.count[g]++
	if !a.isDur(g) {
		switch v.Type {
		case vector.Int64:
			return a.addInt(g, v.I64[r])
		case vector.Float64:
			a.addFloat(g, v.F64[r])
			return nil
		}
	}
	return a.addValue(g, v.Get(r))
}

// addValue folds a generic value into group g, its count already taken.
func (a *sumState) addValue(g int32, x vector.Value) error {
	switch x := x.(type) {
	case int64:
		if !a.isDur(g) {
			return a.addInt(g, x)
		}
	case float64:
		if !a.isDur(g) {
			a.addFloat(g, x)
			return nil
		}
	case temporal.Duration:
		if a.isDur(g) || a.count[g] == 1 {
			a.setDur(g)
			return a.addDuration(g, x)
		}
	default:
		return errs.Data("%s() expects numbers or durations, got %s", a.name, TypeName(x))
	}
	return errs.Data("%s() cannot mix numbers and durations", a.name)
}

func (a *sumState) overflow() error {
	return errs.DataCode(errs.CodeOverflow, "integer overflow in %s()", a.name)
}

func (a *sumState) addInt(g int32, x int64) error {
	s := a.isum[g] + x
	if (a.isum[g]^s)&(x^s) < 0 {
		return a.overflow()
	}
	a.isum[g] = s
	return nil
}

// isDur reports whether group g sums durations.
func (a *sumState) isDur(g int32) bool { return int(g) < len(a.dur) && a.dur[g] }

// addFloat adds a float to group g's sum, allocating the float state at
// the first float.
func (a *sumState) addFloat(g int32, x float64) {
	if a.float == nil {
		a.float = make([]bool, len(a.count))
		a.fsum = make([]float64, len(a.count))
	}
	a.float[g] = true
	a.fsum[g] += x
}

// isFloat reports whether group g's sum has met a FLOAT.
func (a *sumState) isFloat(g int32) bool { return int(g) < len(a.float) && a.float[g] }

// fsumOf is group g's sum of floats.
func (a *sumState) fsumOf(g int32) float64 {
	if int(g) < len(a.fsum) {
		return a.fsum[g]
	}
	return 0
}

// setDur marks group g as summing durations.
func (a *sumState) setDur(g int32) {
	if a.dur == nil {
		a.dur = make([]bool, len(a.count))
		a.dsum = make([]temporal.Duration, len(a.count))
	}
	a.dur[g] = true
}

// addDuration adds a duration to group g's sum, component by component,
// refusing a component that leaves the int64 range.
func (a *sumState) addDuration(g int32, x temporal.Duration) error {
	var b temporal.DurationBuilder
	s := a.dsum[g]
	b.AddIntMonths(s.Months)
	b.AddIntMonths(x.Months)
	b.AddIntDays(s.Days)
	b.AddIntDays(x.Days)
	b.AddInt(s.Seconds, temporal.NanosPerSecond)
	b.AddInt(x.Seconds, temporal.NanosPerSecond)
	b.AddInt(int64(s.Nanos)+int64(x.Nanos), 1)
	d, err := b.Duration()
	if err != nil {
		return TemporalErr(err)
	}
	a.dsum[g] = d
	return nil
}

// Merge adds the partial sums. A group sums numbers or durations;
// meeting both is an error whichever worker saw which.
func (a *sumState) Merge(from AggState, to []int32) error {
	b := from.(*sumState)
	for fg := range to {
		g, bg := to[fg], int32(fg)
		if b.isDur(bg) {
			if a.count[g] > 0 && !a.isDur(g) {
				return errs.Data("%s() cannot mix numbers and durations", a.name)
			}
			a.setDur(g)
			a.count[g] += b.count[bg]
			if err := a.addDuration(g, b.dsum[bg]); err != nil {
				return err
			}
			continue
		}
		if b.count[bg] > 0 && a.isDur(g) {
			return errs.Data("%s() cannot mix numbers and durations", a.name)
		}
		a.count[g] += b.count[bg]
		if err := a.addInt(g, b.isum[bg]); err != nil {
			return err
		}
		if b.isFloat(bg) {
			a.addFloat(g, b.fsum[bg])
		}
	}
	return nil
}

func (a *sumState) MergeValue(g int32, x vector.Value, _ AggState, _ int32) error {
	a.count[g]++
	if !a.isDur(g) {
		switch x := x.(type) {
		case int64:
			return a.addInt(g, x)
		case float64:
			a.addFloat(g, x)
			return nil
		}
	}
	return a.addValue(g, x)
}

func (a *sumState) Result(n int, push func(vector.Value)) (*vector.Vector, error) {
	if v := a.typedResults(n); v != nil {
		return v, nil
	}
	for g := range n {
		if !a.avg {
			switch {
			case a.isDur(int32(g)):
				push(a.dsum[g])
			case a.isFloat(int32(g)):
				push(a.fsumOf(int32(g)) + float64(a.isum[g]))
			default:
				push(a.isum[g])
			}
			continue
		}
		switch {
		case a.count[g] == 0:
			push(nil)
		case a.isDur(int32(g)):
			avg, err := ScaleDuration('/', a.dsum[g], a.count[g])
			if err != nil {
				return nil, err
			}
			push(avg)
		default:
			push((a.fsumOf(int32(g)) + float64(a.isum[g])) / float64(a.count[g]))
		}
	}
	return nil, nil
}

// typedResults builds the values of sum and avg as one typed vector when
// no group summed durations and, for sum, the groups agree on INTEGER or
// FLOAT; nil sends the caller to the per-group path. On 1M groups that
// path boxed each value into a vector of its own.
func (a *sumState) typedResults(n int) *vector.Vector {
	floats := 0
	for g := range n {
		if a.isDur(int32(g)) {
			return nil
		}
		if a.isFloat(int32(g)) {
			floats++
		}
	}
	if !a.avg {
		switch floats {
		case 0:
			return &vector.Vector{Type: vector.Int64, I64: a.isum[:n]}
		case n:
			out := make([]float64, n)
			for g := range out {
				out[g] = a.fsumOf(int32(g)) + float64(a.isum[g])
			}
			return &vector.Vector{Type: vector.Float64, F64: out}
		}
		return nil
	}
	if !slices.ContainsFunc(a.count[:n], func(c int64) bool { return c > 0 }) {
		return nil // no values, no type: the column stays generic
	}
	out := vector.New(vector.Float64, n)
	for g := range n {
		if a.count[g] == 0 {
			out.SetNull(g)
			continue
		}
		out.F64[g] = (a.fsumOf(int32(g)) + float64(a.isum[g])) / float64(a.count[g])
	}
	return out
}

func (a *sumState) GroupBytes() int64 {
	return 8*int64(btoi(a.count != nil)+btoi(a.isum != nil)+btoi(a.fsum != nil)) +
		int64(btoi(a.float != nil)+btoi(a.dur != nil)) + durationBytes*int64(btoi(a.dsum != nil))
}

func (a *sumState) Bytes() int64 {
	return 8*int64(cap(a.count)+cap(a.isum)+cap(a.fsum)) + int64(cap(a.float)+cap(a.dur)) + durationBytes*int64(cap(a.dsum))
}

func (a *sumState) Charged() int64 { return 0 }

func (a *sumState) ResultBytes(v *vector.Vector, _ int) int64 {
	if cap(v.I64) > 0 && (sameArray(v.I64, a.count) || sameArray(v.I64, a.isum)) {
		return -8 * int64(cap(v.I64))
	}
	return 0
}

func (a *sumState) Release() {
	a.release()
	a.env.PutInts(a.isum)
	a.isum = nil
}

// durationBytes is the width of a sum of durations (temporal.Duration).
const durationBytes = 32

// sumFromSummaries is each group's sum: an INTEGER sum, or FLOAT sums
// typed as SumType says (a group that met no value has the INTEGER 0).
func sumFromSummaries(out *vector.Vector, s *Summaries) *vector.Vector {
	if !s.Float {
		out = vector.Reuse(out, vector.Int64)
		out.ResetNulls()
		copy(out.I64, s.Sum)
		return out
	}
	out = vector.Reuse(out, s.SumType)
	for i, b := range s.Sum {
		switch {
		case s.SumType == vector.Int64:
			out.I64[i] = 0
		case s.SumType == vector.Float64:
			out.F64[i] = math.Float64frombits(uint64(b))
		case s.N[i] == 0:
			out.Any[i] = int64(0)
		default:
			out.Any[i] = math.Float64frombits(uint64(b))
		}
	}
	return out
}
