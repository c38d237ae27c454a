package functions

import (
	"math"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// The spreads of each group's non-null numbers: stDev and variance over
// the sample (n - 1), stDevP and varianceP over the population (n); 0.0
// with fewer values than that needs. The state is Welford's running mean
// and sum of squared deviations, numerically stable in one pass, and
// partial states combine by Chan et al.'s formula.
var (
	AggStDev     = registerSpread("stDev", "sample standard deviation", true, true)
	AggStDevP    = registerSpread("stDevP", "population standard deviation", false, true)
	AggVariance  = registerSpread("variance", "sample variance", true, false)
	AggVarianceP = registerSpread("varianceP", "population variance", false, false)
)

func registerSpread(spelling, doc string, sample, root bool) *Agg {
	return registerAgg(Agg{
		Name: strings.ToLower(spelling), Spelling: spelling, Params: 1,
		Sig:  spelling + "(x)",
		Doc:  doc,
		Type: fixedType(vector.Float64),
		New: func(env AggEnv) AggState {
			return &spreadState{counts: counts{env: env}, name: spelling, sample: sample, root: root}
		},
	})
}

type spreadState struct {
	counts
	name         string
	sample, root bool
	mean, m2     []float64
}

func (a *spreadState) Grow(n int) {
	a.grow(n)
	a.mean = memory.Grow(a.mean, n)
	a.m2 = memory.Grow(a.m2, n)
}

func (a *spreadState) Update(b *vector.Batch, args []*vector.Vector, group []int32) error {
	v := args[0]
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

func (a *spreadState) Add(g int32, args []*vector.Vector, r int) error { return a.add(g, args[0], r) }

// add folds row r of v into group g: Welford's update.
func (a *spreadState) add(g int32, v *vector.Vector, r int) error {
	a.count[g]++
	x, err := aggNumber(a.name, v, r)
	if err != nil {
		return err
	}
	a.welford(g, x)
	return nil
}

func (a *spreadState) welford(g int32, x float64) {
	d := x - a.mean[g]
	a.mean[g] += d / float64(a.count[g])
	a.m2[g] += d * (x - a.mean[g])
}

func (a *spreadState) Merge(from AggState, to []int32) error {
	b := from.(*spreadState)
	for fg := range to {
		g := to[fg]
		na, nb := float64(a.count[g]), float64(b.count[fg])
		if nb == 0 {
			continue
		}
		if na == 0 {
			a.mean[g], a.m2[g] = b.mean[fg], b.m2[fg]
		} else {
			n := na + nb
			d := b.mean[fg] - a.mean[g]
			a.mean[g] += d * nb / n
			a.m2[g] += b.m2[fg] + d*d*na*nb/n
		}
		a.count[g] += b.count[fg]
	}
	return nil
}

func (a *spreadState) MergeValue(g int32, x vector.Value, _ AggState, _ int32) error {
	a.count[g]++
	f, err := numberValue(a.name, x)
	if err != nil {
		return err
	}
	a.welford(g, f)
	return nil
}

func (a *spreadState) Result(n int, push func(vector.Value)) (*vector.Vector, error) {
	for g := range n {
		push(a.spread(g))
	}
	return nil, nil
}

// spread is group g's variance or standard deviation.
func (a *spreadState) spread(g int) float64 {
	n := a.count[g]
	if a.sample {
		n--
	}
	if n <= 0 {
		return 0
	}
	v := a.m2[g] / float64(n)
	if a.root {
		return math.Sqrt(v)
	}
	return v
}

func (a *spreadState) GroupBytes() int64 {
	return 8 * int64(btoi(a.count != nil)+btoi(a.mean != nil)+btoi(a.m2 != nil))
}

func (a *spreadState) Bytes() int64 {
	return 8 * int64(cap(a.count)+cap(a.mean)+cap(a.m2))
}

func (a *spreadState) Charged() int64                        { return 0 }
func (a *spreadState) ResultBytes(*vector.Vector, int) int64 { return 0 }
func (a *spreadState) Release()                              { a.release() }

// aggNumber reads row r of v as a number for the statistical aggregates.
func aggNumber(name string, v *vector.Vector, r int) (float64, error) {
	switch v.Type {
	case vector.Int64:
		return float64(v.I64[r]), nil
	case vector.Float64:
		return v.F64[r], nil
	}
	return numberValue(name, v.Get(r))
}

// numberValue reads a generic value as a number.
func numberValue(name string, x vector.Value) (float64, error) {
	switch x := x.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, errs.Data("%s() expects numbers, got %s", name, TypeName(x))
}
