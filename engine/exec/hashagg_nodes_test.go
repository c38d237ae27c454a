package exec

import (
	"context"
	"fmt"
	"github.com/quiverdb/quiver/engine/functions"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// Grouping by one node key: the node table gives each node one group
// whether its vector is typed Node or Any, keeps node 5 and the integer 5
// apart, and takes nulls and ids beyond the direct-mapped array.
func TestAggNodeKeys(t *testing.T) {
	nodes := vector.New(vector.Node, 6)
	copy(nodes.IDs, []uint64{0, 1, 2, 1, 5, 1 << 40})
	anys := vector.New(vector.Any, 5)
	copy(anys.Any, []vector.Value{vector.NodeRef(1), int64(5), vector.NodeRef(5), nil, vector.NodeRef(1 << 40)})
	withNull := vector.New(vector.Node, 2)
	withNull.IDs[0], withNull.IDs[1] = 2, 0
	withNull.SetNull(1)
	var bs []*vector.Batch
	for _, b := range []*vector.Batch{
		{Cols: []*vector.Vector{nodes}, Len: 6},
		{Cols: []*vector.Vector{anys}, Len: 5},
		{Cols: []*vector.Vector{withNull}, Len: 2},
	} {
		bs = append(bs, capped(b)...)
	}
	p := &plan.Aggregate{Keys: []plan.Expr{&plan.ColRef{Idx: 0, T: vector.Any}}, Aggs: []plan.AggCall{{Func: functions.AggCount}},
		Cols: []plan.Column{{Name: "k"}, {Name: "n"}}}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	h, err := newHashAggregate(c, p, &batchesOp{bs: bs})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		b, err := h.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			got = append(got, fmt.Sprintf("%T %v|%v", b.Cols[0].Get(r), b.Cols[0].Get(r), b.Cols[1].Get(r)))
		}
	}
	slices.Sort(got)
	want := []string{"vector.NodeRef 0|1", "vector.NodeRef 1|3", "vector.NodeRef 1099511627776|2", "vector.NodeRef 2|2",
		"vector.NodeRef 5|2", "int64 5|1", "<nil> <nil>|2"}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("groups %q, want %q", got, want)
	}
}

// capped splits a batch into batches of at most vector.Capacity rows (2
// under the batch2 tag), copying each column's rows.
func capped(b *vector.Batch) []*vector.Batch {
	var out []*vector.Batch
	for from := 0; from < b.Len; from += vector.Capacity {
		n := min(vector.Capacity, b.Len-from)
		nb := &vector.Batch{Len: n}
		for _, v := range b.Cols {
			w := vector.New(v.Type, n)
			for i := range n {
				switch {
				case v.IsNull(from + i):
					w.SetNull(i)
				case v.Type == vector.Node:
					w.IDs[i] = v.IDs[from+i]
				case v.Type == vector.Int64:
					w.I64[i] = v.I64[from+i]
				case v.Type == vector.Float64:
					w.F64[i] = v.F64[from+i]
				case v.Type == vector.String:
					w.Str[i] = v.Str[from+i]
				default:
					w.Any[i] = v.Any[from+i]
				}
			}
			nb.Cols = append(nb.Cols, w)
		}
		out = append(out, nb)
	}
	return out
}
