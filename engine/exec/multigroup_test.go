package exec

import (
	"context"
	"fmt"
	"github.com/quiverdb/quiver/engine/functions"
	"slices"
	"sort"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// runMultiAgg runs an aggregate on several keys' ids (ids true) or on the
// general path, and returns its sorted rows and whether any batch was
// grouped on ids.
func runMultiAgg(t *testing.T, st *storage.Store, p *plan.Aggregate, ids bool) ([]string, bool) {
	t.Helper()
	rows, h := runAggWith(t, st, p, func(h *hashAggregate) {
		if !ids {
			h.mk = nil
		}
	})
	return rows, h.mk != nil && h.mk.comb.Len() > 0
}

// TestMultiKeyMatchesGeneral compares grouping on several keys' ids with
// the general path: a coded string key with nulls beside an integer key,
// both ends of an expansion, the same after writes (rows in open chunks,
// without codes), and, last, a key of a type the ids do not take (the
// rest of the input then goes the general way, into the same groups).
func TestMultiKeyMatchesGeneral(t *testing.T) {
	st := parallelStore(t, 3*storage.GroupSize+500)
	kname, kv := st.Catalog().EnsureKey("name"), st.Catalog().EnsureKey("v")
	plans := map[string]*plan.Aggregate{
		"name, v": aggregate(scanP(), []plan.Expr{prop(0, "name"), prop(0, "v")},
			plan.AggCall{Func: functions.AggCount}, plan.AggCall{Func: functions.AggSum, Arg: prop(0, "v")}),
		"a.name, b.name, b.v": aggregate(expandP(scanP(), plan.Out), []plan.Expr{prop(0, "name"), prop(2, "name"), prop(2, "v")},
			plan.AggCall{Func: functions.AggCount}),
	}
	// wantIDs: whether ids must have been used, per plan ("any": either).
	check := func(stage string, wantIDs map[string]string) {
		t.Helper()
		for name, p := range plans {
			want, _ := runMultiAgg(t, st, p, false)
			got, used := runMultiAgg(t, st, p, true)
			if w := wantIDs[name]; w != "any" && fmt.Sprint(used) != w {
				t.Fatalf("%s, %s: ids used %v, want %v", stage, name, used, wantIDs)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %s: on ids\n%v\ngeneral\n%v", stage, name, got, want)
			}
		}
	}
	both := map[string]string{"name, v": "true", "a.name, b.name, b.v": "true"}
	check("sealed", both)
	tx := st.Begin()
	for _, id := range []uint64{0, 2, storage.GroupSize + 4, 2*storage.GroupSize + 10} {
		if err := tx.SetNodeProps(id, []catalog.KeyID{kname, kv}, []vector.Value{fmt.Sprintf("w%d", id%3), int64(100 + id)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.SetNodeProps(6, []catalog.KeyID{kname}, []vector.Value{nil}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	check("after writes", both)
	tx = st.Begin()
	if err := tx.SetNodeProps(3*storage.GroupSize+100, []catalog.KeyID{kv}, []vector.Value{2.5}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// A float makes v a column of mixed type, read as generic values,
	// which the ids do not take: the general path, same groups.
	check("a float key", map[string]string{"name, v": "false", "a.name, b.name, b.v": "false"})
}

// Batches grouped on ids, then one of a key type the ids do not take, then
// more: the later batches go the general way and meet the groups the ids
// made (no group split), nulls included.
func TestMultiKeyOffMidway(t *testing.T) {
	mk := func(ints []int64, strs []string, float bool) *vector.Batch {
		x := vector.New(vector.Int64, len(ints))
		copy(x.I64, ints)
		if float {
			x = vector.New(vector.Float64, len(ints))
			for i, v := range ints {
				x.F64[i] = float64(v) + 0.5
			}
		}
		y := vector.New(vector.String, len(strs))
		copy(y.Str, strs)
		y.SetNull(len(strs) - 1)
		return &vector.Batch{Cols: []*vector.Vector{x, y}, Len: len(ints)}
	}
	var bs []*vector.Batch
	for _, b := range []*vector.Batch{
		mk([]int64{1, 2, 1, 3}, []string{"a", "b", "a", "x"}, false),
		mk([]int64{1, 2}, []string{"a", "x"}, true),
		mk([]int64{1, 2, 3, 3}, []string{"a", "b", "c", "x"}, false),
	} {
		bs = append(bs, capped(b)...)
	}
	col := func(i int) plan.Expr { return &plan.ColRef{Idx: i, T: vector.Any} }
	p := &plan.Aggregate{Keys: []plan.Expr{col(0), col(1)}, Aggs: []plan.AggCall{{Func: functions.AggCount}},
		Cols: []plan.Column{{Name: "k"}, {Name: "s"}, {Name: "n"}}}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	h, err := newHashAggregate(c, p, &batchesOp{bs: bs})
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, h)
	sort.Strings(got)
	want := []string{"1.5|a|1", "1|a|3", "2.5|<nil>|1", "2|b|2", "3|<nil>|2", "3|c|1"}
	if !slices.Equal(got, want) {
		t.Fatalf("groups %q, want %q", got, want)
	}
	if !h.mk.off || h.mk.comb.Len() != 3 {
		t.Fatalf("off %v after %d combinations on ids, want off after 3", h.mk.off, h.mk.comb.Len())
	}
}
