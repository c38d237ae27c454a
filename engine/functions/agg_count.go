package functions

import "github.com/quiverdb/quiver/vector"

// AggCount is count(x), count(*) and count(DISTINCT x): the number of
// non-null values, or of rows. Its state is the groups' counts alone,
// and its result is the counts' array itself.
var AggCount = registerAgg(Agg{
	Name: "count", Spelling: "count", Params: 1, Star: true,
	Sig:            "count(x) | count(*) | count(DISTINCT x)",
	Doc:            "number of non-null values, or of rows",
	Type:           fixedType(vector.Int64),
	New:            func(env AggEnv) AggState { return &countState{counts{env: env}} },
	RowCount:       true,
	FromSummaries:  countFromSummaries,
	FloatSummaries: true,
})

type countState struct{ counts }

func (a *countState) Grow(n int) { a.grow(n) }

func (a *countState) Update(b *vector.Batch, args []*vector.Vector, group []int32) error {
	a.countRows(b, args[0], group)
	return nil
}

func (a *countState) Add(g int32, _ []*vector.Vector, _ int) error {
	a.count[g]++
	return nil
}

func (a *countState) Merge(from AggState, to []int32) error {
	for fg, n := range from.(*countState).count[:len(to)] {
		a.count[to[fg]] += n
	}
	return nil
}

func (a *countState) MergeValue(g int32, _ vector.Value, _ AggState, _ int32) error {
	a.count[g]++
	return nil
}

func (a *countState) Result(n int, _ func(vector.Value)) (*vector.Vector, error) {
	return &vector.Vector{Type: vector.Int64, I64: a.count[:n]}, nil
}

func (a *countState) GroupBytes() int64 { return 8 * int64(btoi(a.count != nil)) }
func (a *countState) Bytes() int64      { return 8 * int64(cap(a.count)) }
func (a *countState) Charged() int64    { return 0 }
func (a *countState) Release()          { a.release() }

func (a *countState) ResultBytes(v *vector.Vector, _ int) int64 {
	if sameArray(v.I64, a.count) {
		return -8 * int64(cap(v.I64))
	}
	return 0
}

// countFromSummaries is the number of values (or rows) of each group.
func countFromSummaries(out *vector.Vector, s *Summaries) *vector.Vector {
	out = vector.Reuse(out, vector.Int64)
	out.ResetNulls()
	copy(out.I64, s.N)
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
