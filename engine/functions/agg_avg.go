package functions

import (
	"math"

	"github.com/quiverdb/quiver/vector"
)

// AggAvg is avg(x): the arithmetic mean of the non-null numbers of each
// group (FLOAT), or of its durations (a duration); null over none. Its
// state is sum's (agg_sum.go), divided by the count at the end.
var AggAvg = registerAgg(Agg{
	Name: "avg", Spelling: "avg", Params: 1,
	Sig: "avg(x)",
	Doc: "arithmetic mean of the non-null numbers",
	// The average of durations is a duration: FLOAT only when the
	// argument is known to be numeric.
	Type: func(arg vector.Type) vector.Type {
		if arg == vector.Int64 || arg == vector.Float64 {
			return vector.Float64
		}
		return vector.Any
	},
	New:            func(env AggEnv) AggState { return newSumState(env, "avg", true) },
	FromSummaries:  avgFromSummaries,
	FloatSummaries: true,
})

// avgFromSummaries is each group's mean, null where it met no value.
func avgFromSummaries(out *vector.Vector, s *Summaries) *vector.Vector {
	out = vector.Reuse(out, vector.Float64)
	out.ResetNulls()
	for i, n := range s.N {
		switch {
		case n == 0:
			out.SetNull(i)
		case s.Float:
			out.F64[i] = math.Float64frombits(uint64(s.Sum[i])) / float64(n)
		default:
			out.F64[i] = float64(s.Sum[i]) / float64(n)
		}
	}
	return out
}
