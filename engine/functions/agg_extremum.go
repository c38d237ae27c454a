package functions

import (
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// AggMin and AggMax are min(x) and max(x): the least and the greatest
// non-null value of each group, null over none. Values of different
// types compare by Cypher's global order, as ORDER BY sorts them.
var (
	AggMin = registerAgg(Agg{
		Name: "min", Spelling: "min", Params: 1,
		Sig:            "min(x)",
		Doc:            "smallest value",
		Type:           fixedType(vector.Any),
		New:            func(env AggEnv) AggState { return &extremumState{counts: counts{env: env}, want: -1} },
		DupInsensitive: true,
		FromSummaries: func(out *vector.Vector, s *Summaries) *vector.Vector {
			return extremumFromSummaries(out, s.Min, s.N)
		},
	})
	AggMax = registerAgg(Agg{
		Name: "max", Spelling: "max", Params: 1,
		Sig:            "max(x)",
		Doc:            "largest value",
		Type:           fixedType(vector.Any),
		New:            func(env AggEnv) AggState { return &extremumState{counts: counts{env: env}, want: 1} },
		DupInsensitive: true,
		FromSummaries: func(out *vector.Vector, s *Summaries) *vector.Vector {
			return extremumFromSummaries(out, s.Max, s.N)
		},
	})
)

// extremumState keeps each group's best value so far: the one that
// compares as want (-1 least, 1 greatest) against the others.
type extremumState struct {
	counts
	want int
	best []vector.Value
}

func (a *extremumState) Grow(n int) {
	a.grow(n)
	a.best = memory.Grow(a.best, n)
}

func (a *extremumState) Update(b *vector.Batch, args []*vector.Vector, group []int32) error {
	v := args[0]
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.IsNull(r) {
			continue
		}
		a.add(group[r], v, r)
	}
	return nil
}

func (a *extremumState) Add(g int32, args []*vector.Vector, r int) error {
	a.add(g, args[0], r)
	return nil
}

// add folds row r of v into group g. A typed row against a best of its
// own type compares without boxing; only a new best is boxed.
func (a *extremumState) add(g int32, v *vector.Vector, r int) {
	a.count[g]++
	want := a.want
	switch v.Type {
	case vector.Int64:
		if b, ok := a.best[g].(int64); ok {
			if CmpOrdered(v.I64[r], b) == want {
				a.best[g] = v.I64[r]
			}
			return
		}
	case vector.Float64:
		if b, ok := a.best[g].(float64); ok {
			if CmpTotalFloat(v.F64[r], b) == want {
				a.best[g] = v.F64[r]
			}
			return
		}
	case vector.String:
		if b, ok := a.best[g].(string); ok {
			if CmpOrdered(v.Str[r], b) == want {
				a.best[g] = v.Str[r]
			}
			return
		}
	}
	a.addValue(g, v.Get(r))
}

// addValue compares a generic value with group g's best.
func (a *extremumState) addValue(g int32, x vector.Value) {
	if a.best[g] == nil || OrderTotal(x, a.best[g]) == a.want {
		a.best[g] = x
	}
}

func (a *extremumState) Merge(from AggState, to []int32) error {
	b := from.(*extremumState)
	for fg := range to {
		g := to[fg]
		a.count[g] += b.count[fg]
		if x := b.best[fg]; x != nil {
			a.addValue(g, x)
		}
	}
	return nil
}

func (a *extremumState) MergeValue(g int32, x vector.Value, _ AggState, _ int32) error {
	a.count[g]++
	a.addValue(g, x)
	return nil
}

func (a *extremumState) Result(n int, push func(vector.Value)) (*vector.Vector, error) {
	for _, x := range a.best[:n] {
		push(x)
	}
	return nil, nil
}

func (a *extremumState) GroupBytes() int64 {
	return 8*int64(btoi(a.count != nil)) + memory.IfaceBytes*int64(btoi(a.best != nil))
}

func (a *extremumState) Bytes() int64 {
	return 8*int64(cap(a.count)) + memory.IfaceBytes*int64(cap(a.best))
}

func (a *extremumState) Charged() int64                        { return 0 }
func (a *extremumState) ResultBytes(*vector.Vector, int) int64 { return 0 }
func (a *extremumState) Release()                              { a.release() }

// extremumFromSummaries is each group's least or greatest INTEGER (vals),
// null where it met no value.
func extremumFromSummaries(out *vector.Vector, vals, ns []int64) *vector.Vector {
	out = vector.Reuse(out, vector.Int64)
	out.ResetNulls()
	for i, n := range ns {
		if n == 0 {
			out.SetNull(i)
			continue
		}
		out.I64[i] = vals[i]
	}
	return out
}
