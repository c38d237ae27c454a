package functions

import (
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/vector"
)

// AggCollect is collect(x): the list of each group's non-null values, in
// the order the rows came (an empty list over none). The lists are
// charged to the statement as they grow (AggEnv.GrowList).
var AggCollect = registerAgg(Agg{
	Name: "collect", Spelling: "collect", Params: 1,
	Sig:  "collect(x)",
	Doc:  "list of the non-null values",
	Type: fixedType(vector.Any),
	Kind: "LIST",
	New: func(env AggEnv) AggState {
		return &collectState{counts: counts{env: env}, lists: lists{env: env}}
	},
})

type collectState struct {
	counts
	lists
}

func (a *collectState) Grow(n int) {
	a.grow(n)
	a.lists.lists = memory.Grow(a.lists.lists, n)
}

func (a *collectState) Update(b *vector.Batch, args []*vector.Vector, group []int32) error {
	v := args[0]
	for i := 0; i < b.Rows(); i++ {
		r := b.Row(i)
		if v.IsNull(r) {
			continue
		}
		g := group[r]
		a.count[g]++
		if err := a.add(g, v.Get(r)); err != nil {
			return err
		}
	}
	return nil
}

func (a *collectState) Add(g int32, args []*vector.Vector, r int) error {
	a.count[g]++
	return a.add(g, args[0].Get(r))
}

// Merge concatenates the partial lists; their values' bytes move with
// them.
func (a *collectState) Merge(from AggState, to []int32) error {
	b := from.(*collectState)
	for fg := range to {
		a.count[to[fg]] += b.count[fg]
		if err := a.appendFrom(to[fg], &b.lists, int32(fg)); err != nil {
			return err
		}
	}
	a.held += b.held
	return nil
}

func (a *collectState) MergeValue(g int32, x vector.Value, _ AggState, _ int32) error {
	a.count[g]++
	return a.add(g, x)
}

func (a *collectState) Result(n int, push func(vector.Value)) (*vector.Vector, error) {
	for _, l := range a.lists.lists[:n] {
		if l == nil {
			l = []vector.Value{}
		}
		push(l)
	}
	return nil, nil
}

func (a *collectState) GroupBytes() int64 {
	return 8*int64(btoi(a.count != nil)) + memory.SliceBytes*int64(btoi(a.lists.lists != nil))
}

func (a *collectState) Bytes() int64   { return 8*int64(cap(a.count)) + a.lists.bytes() }
func (a *collectState) Charged() int64 { return a.takeCharged() }
func (a *collectState) Release()       { a.release() }

// ResultBytes: each group's list is boxed once more in the result.
func (a *collectState) ResultBytes(_ *vector.Vector, n int) int64 {
	return memory.SliceBytes * int64(n)
}
