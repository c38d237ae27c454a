package exec

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// multiBatches is rows of nkeys key columns (an INTEGER first, STRINGs
// after it) whose row i holds key values of i's digits in base distinct,
// every seventh row null in its last key, cut to batch size.
func multiBatches(nkeys, rows, distinct, from int) []*vector.Batch {
	b := &vector.Batch{Len: rows}
	for k := range nkeys {
		t := vector.String
		if k == 0 {
			t = vector.Int64
		}
		b.Cols = append(b.Cols, vector.New(t, rows))
	}
	for i := range rows {
		x := from + i
		for k, v := range b.Cols {
			d := (x / pow(distinct, k)) % distinct
			switch {
			case k == nkeys-1 && i%7 == 0:
				v.SetNull(i)
			case k == 0:
				v.I64[i] = int64(d)
			default:
				v.Str[i] = fmt.Sprintf("s%d", d)
			}
		}
	}
	return capped(b)
}

func pow(b, e int) int {
	r := 1
	for range e {
		r *= b
	}
	return r
}

func multiPlan(nkeys int) *plan.Aggregate {
	p := &plan.Aggregate{Aggs: []plan.AggCall{{Func: functions.AggCount}}}
	for k := range nkeys {
		p.Keys = append(p.Keys, &plan.ColRef{Idx: k, T: vector.Any})
		p.Cols = append(p.Cols, plan.Column{Name: fmt.Sprintf("k%d", k)})
	}
	p.Cols = append(p.Cols, plan.Column{Name: "n"})
	return p
}

// aggregateOver runs p over bs in one hash aggregate, on ids or (ids
// false) the general path, and returns it with its groups not emitted.
func aggregateOver(t *testing.T, p *plan.Aggregate, bs []*vector.Batch, ids bool) *hashAggregate {
	t.Helper()
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	h, err := newHashAggregate(c, p, &batchesOp{bs: bs})
	if err != nil {
		t.Fatal(err)
	}
	if !ids {
		h.mk = nil
	}
	if err := h.consume(); err != nil {
		t.Fatal(err)
	}
	return h
}

func emitted(t *testing.T, h *hashAggregate) []string {
	t.Helper()
	h.done = true
	rows := drain(t, h)
	sort.Strings(rows)
	return rows
}

// Ids start narrow (combined keys of small ids are direct-mapped) and
// widen as a key gains values: 2, 3 and 4 keys with more distinct values
// than the first width holds group as the general path does, and the ids
// stay on.
func TestMultiKeyWidens(t *testing.T) {
	for _, nkeys := range []int{2, 3, 4} {
		p := multiPlan(nkeys)
		bs := multiBatches(nkeys, 5000, 300, 0)
		gen := aggregateOver(t, p, bs, false)
		ids := aggregateOver(t, p, bs, true)
		m := ids.mk
		if m == nil || m.off || m.bits == 16/uint(nkeys) || m.comb.Len() != ids.ngroups {
			t.Fatalf("%d keys: ids off or not widened: %+v", nkeys, m)
		}
		if got, want := emitted(t, ids), emitted(t, gen); !slices.Equal(got, want) {
			t.Fatalf("%d keys: on ids %d groups, general %d\n%v\n%v", nkeys, len(got), len(want), got[:min(8, len(got))], want[:min(8, len(want))])
		}
	}
}

// Partial aggregates that met their values in different orders, and one
// whose values do not fit the merged side's width yet, merge by ids into
// the groups a merge by the keys' bytes makes; a partial that went the
// general way (a key of another type) is merged by bytes.
func TestMultiKeyMergeByIDs(t *testing.T) {
	p := multiPlan(2)
	parts := [][]*vector.Batch{
		multiBatches(2, 3000, 40, 0),
		multiBatches(2, 3000, 40, 1500), // the same values, met later
		multiBatches(2, 2000, 400, 0),   // ids past 8 bits
	}
	merge := func(ids bool, partials [][]*vector.Batch) (*hashAggregate, []string) {
		c := &Context{Env: expr.Env{Ctx: context.Background()}}
		final, err := newHashAggregate(c, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !ids {
			final.mk = nil
		}
		for _, bs := range partials {
			w := aggregateOver(t, p, bs, ids)
			if err := final.merge(w); err != nil {
				t.Fatal(err)
			}
		}
		return final, emitted(t, final)
	}
	var all []*vector.Batch
	for _, bs := range parts {
		all = append(all, bs...)
	}
	one := aggregateOver(t, p, all, false)
	want := emitted(t, one)
	final, got := merge(true, parts)
	if !slices.Equal(got, want) {
		t.Fatalf("merged on ids: %d groups, want %d", len(got), len(want))
	}
	if _, bytes := merge(false, parts); !slices.Equal(bytes, want) {
		t.Fatalf("merged by bytes: %d groups, want %d", len(bytes), len(want))
	}
	// Every merge went by ids: the merged side's table holds each group.
	if final.mk == nil || final.mk.comb.Len() != len(want) || final.mk.bits == 8 {
		t.Fatalf("merged groups not all on ids: %d of %d, bits %d", final.mk.comb.Len(), len(want), final.mk.bits)
	}
	// A partial with a FLOAT key (off its ids) between two on ids.
	floats := multiBatches(2, 100, 40, 0)
	for _, b := range floats {
		f := vector.New(vector.Float64, b.Len)
		for i := range b.Len {
			f.F64[i] = float64(b.Cols[0].I64[i]) + 0.5
		}
		b.Cols[0] = f
	}
	mixed := [][]*vector.Batch{parts[0], floats, parts[2]}
	_, got = merge(true, mixed)
	all = nil
	for _, bs := range mixed {
		all = append(all, bs...)
	}
	one = aggregateOver(t, p, all, false)
	if want := emitted(t, one); !slices.Equal(got, want) {
		t.Fatalf("merged with a general partial: %d groups, want %d", len(got), len(want))
	}
}
