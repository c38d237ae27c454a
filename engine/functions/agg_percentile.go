package functions

import (
	"math"
	"sort"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// AggPercentileCont and AggPercentileDisc are percentileCont(x, p) and
// percentileDisc(x, p): the p-th percentile (0 to 1) of each group's
// non-null numbers, null over none. percentileDisc is the value at rank
// ceil(p·n) (the smallest for p = 0); percentileCont interpolates
// linearly between the values around p·(n-1). Every row's p is checked;
// a group takes the p of its first value. The values are kept in lists,
// charged as collect's are, and sorted at the end.
var (
	AggPercentileCont = registerAgg(Agg{
		Name: "percentilecont", Spelling: "percentileCont", Params: 2,
		Sig:  "percentileCont(x, p)",
		Doc:  "percentile p (0 to 1), interpolated",
		Type: fixedType(vector.Float64),
		New: func(env AggEnv) AggState {
			return &percentileState{counts: counts{env: env}, lists: lists{env: env}, name: "percentileCont"}
		},
	})
	AggPercentileDisc = registerAgg(Agg{
		Name: "percentiledisc", Spelling: "percentileDisc", Params: 2,
		Sig:  "percentileDisc(x, p)",
		Doc:  "percentile p (0 to 1), the nearest value",
		Type: fixedType(vector.Any),
		New: func(env AggEnv) AggState {
			return &percentileState{counts: counts{env: env}, lists: lists{env: env}, name: "percentileDisc", disc: true}
		},
	})
)

type percentileState struct {
	counts
	lists
	name string
	disc bool
	pct  []float64 // the percentile of each group, from its first value
}

func (a *percentileState) Grow(n int) {
	a.grow(n)
	a.lists.lists = memory.Grow(a.lists.lists, n)
	a.pct = memory.Grow(a.pct, n)
}

func (a *percentileState) Update(b *vector.Batch, args []*vector.Vector, group []int32) error {
	v := args[0]
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.IsNull(r) {
			continue
		}
		g := group[r]
		if err := a.CheckArg(g, args, r); err != nil {
			return err
		}
		if err := a.add(g, v, r); err != nil {
			return err
		}
	}
	return nil
}

// CheckArg checks row r's percentile and keeps it as group g's when the
// group has no value yet.
func (a *percentileState) CheckArg(g int32, args []*vector.Vector, r int) error {
	var f float64
	switch x := args[1].Get(r).(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return errs.Data("%s() expects a numeric percentile, got %s", a.name, TypeName(x))
	}
	if !(f >= 0 && f <= 1) {
		return errs.Data("%s(): the percentile must be between 0.0 and 1.0, got %v", a.name, f)
	}
	if len(a.lists.lists[g]) == 0 {
		a.pct[g] = f
	}
	return nil
}

func (a *percentileState) Add(g int32, args []*vector.Vector, r int) error {
	return a.add(g, args[0], r)
}

// add keeps row r of v (a number) in group g's list.
func (a *percentileState) add(g int32, v *vector.Vector, r int) error {
	a.count[g]++
	if _, err := aggNumber(a.name, v, r); err != nil {
		return err
	}
	return a.lists.add(g, v.Get(r))
}

func (a *percentileState) Merge(from AggState, to []int32) error {
	b := from.(*percentileState)
	for fg := range to {
		g := to[fg]
		if len(b.lists.lists[fg]) == 0 {
			continue
		}
		if len(a.lists.lists[g]) == 0 {
			a.pct[g] = b.pct[fg]
		}
		a.count[g] += b.count[fg]
		if err := a.appendFrom(g, &b.lists, int32(fg)); err != nil {
			return err
		}
	}
	a.held += b.held
	return nil
}

func (a *percentileState) MergeValue(g int32, x vector.Value, from AggState, fg int32) error {
	if len(a.lists.lists[g]) == 0 {
		a.pct[g] = from.(*percentileState).pct[fg]
	}
	a.count[g]++
	if _, err := numberValue(a.name, x); err != nil {
		return err
	}
	return a.lists.add(g, x)
}

func (a *percentileState) Result(n int, push func(vector.Value)) (*vector.Vector, error) {
	for g := range n {
		push(percentileOf(a.lists.lists[g], a.pct[g], a.disc))
	}
	return nil, nil
}

// percentileOf is the p-th percentile of numbers, null without values.
func percentileOf(vals []vector.Value, p float64, disc bool) vector.Value {
	n := len(vals)
	if n == 0 {
		return nil
	}
	sort.SliceStable(vals, func(i, j int) bool { return OrderTotal(vals[i], vals[j]) < 0 })
	if disc {
		idx := int(math.Ceil(p*float64(n))) - 1
		return vals[max(idx, 0)]
	}
	f := func(v vector.Value) float64 {
		if i, ok := v.(int64); ok {
			return float64(i)
		}
		return v.(float64)
	}
	pos := p * float64(n-1)
	lo, hi := int(math.Floor(pos)), int(math.Ceil(pos))
	if lo == hi {
		return f(vals[lo])
	}
	return f(vals[lo])*(float64(hi)-pos) + f(vals[hi])*(pos-float64(lo))
}

func (a *percentileState) GroupBytes() int64 {
	return 8*int64(btoi(a.count != nil)+btoi(a.pct != nil)) + memory.SliceBytes*int64(btoi(a.lists.lists != nil))
}

func (a *percentileState) Bytes() int64 {
	return 8*int64(cap(a.count)+cap(a.pct)) + a.lists.bytes()
}

func (a *percentileState) Charged() int64 { return a.takeCharged() }
func (a *percentileState) Release()       { a.release() }

// ResultBytes: as collect's, the lists' headers count once more.
func (a *percentileState) ResultBytes(_ *vector.Vector, n int) int64 {
	return memory.SliceBytes * int64(n)
}
