package exec

import (
	"context"
	"fmt"
	"github.com/quiverdb/quiver/engine/functions"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// batchesOp yields prepared batches, then nil.
type batchesOp struct {
	bs  []*vector.Batch
	pos int
}

func (o *batchesOp) Next() (*vector.Batch, error) {
	if o.pos == len(o.bs) {
		return nil, nil
	}
	o.pos++
	return o.bs[o.pos-1], nil
}

// drain reads every row of op as rendered cells.
func drain(t testing.TB, op Operator) []string {
	t.Helper()
	var rows []string
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return rows
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			var cells []string
			for _, v := range b.Cols {
				cells = append(cells, cell(v.Get(r)))
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
	}
}

// runAgg runs an aggregate over a node scan of st, on dictionary codes or
// (codes false) on the general path, and returns its sorted rows and
// whether any code was used.
func runAgg(t *testing.T, st *storage.Store, p *plan.Aggregate, codes bool) ([]string, bool) {
	t.Helper()
	rows, h := runAggWith(t, st, p, func(h *hashAggregate) {
		if !codes {
			h.dk = nil
		}
	})
	return rows, h.dk != nil && len(h.dk.trans) > 0
}

// runAggWith runs an aggregate over st's snapshot, with prep applied to
// the operator first (to switch a path off), and returns its sorted rows
// and the operator.
func runAggWith(t *testing.T, st *storage.Store, p *plan.Aggregate, prep func(*hashAggregate)) ([]string, *hashAggregate) {
	t.Helper()
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}}
	in, err := Build(c, p.Input)
	if err != nil {
		t.Fatal(err)
	}
	h, err := newHashAggregate(c, p, in)
	if err != nil {
		t.Fatal(err)
	}
	prep(h)
	rows := drain(t, h)
	sort.Strings(rows)
	return rows, h
}

// TestDictKeyMatchesGeneral compares grouping on codes with the general
// path on a store whose string column has sealed chunks, nulls, rows
// written after sealing (new strings, removals, deletions) and, last, a
// value of another type.
func TestDictKeyMatchesGeneral(t *testing.T) {
	st := parallelStore(t, 3*storage.GroupSize+500)
	cat := st.Catalog()
	kname := cat.EnsureKey("name")
	p := aggregate(scanP(), []plan.Expr{prop(0, "name")},
		plan.AggCall{Func: functions.AggCount}, plan.AggCall{Func: functions.AggAvg, Arg: prop(0, "v")},
		plan.AggCall{Func: functions.AggCount, Arg: prop(0, "v"), Distinct: true})
	check := func(stage string, wantCodes bool) {
		t.Helper()
		want, _ := runAgg(t, st, p, false)
		got, used := runAgg(t, st, p, true)
		if used != wantCodes {
			t.Fatalf("%s: codes used %v, want %v", stage, used, wantCodes)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: on codes\n%v\ngeneral\n%v", stage, got, want)
		}
	}
	check("sealed", true)
	tx := st.Begin()
	for _, id := range []uint64{0, 2, storage.GroupSize + 4, 2*storage.GroupSize + 10} {
		if err := tx.SetNodeProps(id, []catalog.KeyID{kname}, []vector.Value{fmt.Sprintf("w%d", id%3)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.SetNodeProps(6, []catalog.KeyID{kname}, []vector.Value{nil}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tx.DeleteNode(8, true); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	check("after writes", true)
	tx = st.Begin()
	if err := tx.SetNodeProps(12, []catalog.KeyID{kname}, []vector.Value{int64(5)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	check("mixed column", false)
}

// typedBatches splits rows of an int column with nulls and a string
// column into batches: typed vectors first, generic ones after half, so
// a top-k compares typed rows with buffered generic ones and back.
func typedBatches(a []vector.Value, s []string) []*vector.Batch {
	var bs []*vector.Batch
	for from := 0; from < len(a); from += 300 {
		n := min(300, len(a)-from)
		x, y := vector.New(vector.Int64, n), vector.New(vector.String, n)
		if from >= len(a)/2 {
			x = vector.New(vector.Any, n)
		}
		for i := range n {
			x.Set(i, a[from+i])
			y.Str[i] = s[from+i]
		}
		b := &vector.Batch{Cols: []*vector.Vector{x, y}, Len: n}
		if from%600 == 0 { // every other batch with a selection
			for i := 0; i < n; i += 2 {
				b.Sel = append(b.Sel, int32(i))
			}
		}
		bs = append(bs, b)
	}
	return bs
}

// TestTopKBarMatchesFullSort checks ORDER BY … LIMIT (rows dropped
// against the k-th best on arrival) against the full stable sort of the
// same batches, with many ties, nulls, mixed typed and generic batches,
// both directions.
func TestTopKBarMatchesFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 20000
	a, s := make([]vector.Value, n), make([]string, n)
	for i := range a {
		if rng.IntN(20) > 0 {
			a[i] = int64(rng.IntN(40))
		}
		s[i] = fmt.Sprint(rng.IntN(30))
	}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	for _, keys := range [][]plan.SortKey{{{Col: 0, Desc: true}}, {{Col: 0}}, {{Col: 0}, {Col: 1, Desc: true}}, {{Col: 1}}} {
		full, err := newSort(c, &plan.Sort{Keys: keys}, &batchesOp{bs: typedBatches(a, s)})
		if err != nil {
			t.Fatal(err)
		}
		want := drain(t, full)
		for _, limit := range []int64{1, 3, 10, 700, 5000} {
			top, err := newSort(c, chosen(&plan.Sort{Keys: keys, Limit: konst(limit)}), &batchesOp{bs: typedBatches(a, s)})
			if err != nil {
				t.Fatal(err)
			}
			got := drain(t, top)
			if !slices.Equal(got, want[:min(int(limit), len(want))]) {
				t.Fatalf("keys %v limit %d: top-k differs from the full sort", keys, limit)
			}
		}
	}
}

// intKeyBatches is n rows of (key, 1) with keys i*stride (Q8's shape:
// one row per node, grouped by its id).
func intKeyBatches(n int, stride int64) []*vector.Batch {
	var bs []*vector.Batch
	for from := 0; from < n; from += vector.Capacity {
		m := min(vector.Capacity, n-from)
		k, one := vector.New(vector.Int64, m), vector.New(vector.Int64, m)
		for i := range m {
			k.I64[i], one.I64[i] = int64(from+i)*stride, 1
		}
		bs = append(bs, &vector.Batch{Cols: []*vector.Vector{k, one}, Len: m})
	}
	return bs
}

func benchIntKeys(b *testing.B, stride int64) {
	bs := intKeyBatches(1<<20, stride)
	col := func(i int) plan.Expr { return &plan.ColRef{Idx: i, T: vector.Int64} }
	p := &plan.Aggregate{Keys: []plan.Expr{col(0)}, Aggs: []plan.AggCall{{Func: functions.AggSum, Arg: col(1)}},
		Cols: []plan.Column{{Name: "k"}, {Name: "s"}}}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	b.ReportAllocs()
	for b.Loop() {
		h, err := newHashAggregate(c, p, &batchesOp{bs: bs})
		if err != nil {
			b.Fatal(err)
		}
		for {
			out, err := h.Next()
			if err != nil {
				b.Fatal(err)
			}
			if out == nil {
				break
			}
		}
	}
}

// BenchmarkAggIntKeysDense groups 1M rows by 1M distinct small keys (the
// direct-mapped part of inttable.Table).
func BenchmarkAggIntKeysDense(b *testing.B) { benchIntKeys(b, 1) }

// BenchmarkAggIntKeysHashed groups 1M rows by 1M keys spread too far
// apart for the direct-mapped part.
func BenchmarkAggIntKeysHashed(b *testing.B) { benchIntKeys(b, 1<<33) }

// BenchmarkCountDistinctNodes is count(DISTINCT c) over 121,671 node
// rows (Q6's shape): the global aggregate's bitset.
func BenchmarkCountDistinctNodes(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var bs []*vector.Batch
	for from := 0; from < 121671; from += vector.Capacity {
		m := min(vector.Capacity, 121671-from)
		v := vector.New(vector.Node, m)
		for i := range m {
			v.IDs[i] = uint64(rng.IntN(1 << 20))
		}
		bs = append(bs, &vector.Batch{Cols: []*vector.Vector{v}, Len: m})
	}
	p := &plan.Aggregate{Aggs: []plan.AggCall{{Func: functions.AggCount, Distinct: true, Arg: &plan.ColRef{Idx: 0, T: vector.Node}}},
		Cols: []plan.Column{{Name: "d"}}}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	b.ReportAllocs()
	for b.Loop() {
		h, err := newHashAggregate(c, p, &batchesOp{bs: bs})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTopK is ORDER BY d DESC LIMIT 10 over 1M rows (Q8's sort).
func BenchmarkTopK(b *testing.B) {
	bs := intKeyBatches(1<<20, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, x := range bs {
		for i := range x.Len {
			x.Cols[1].I64[i] = int64(rng.IntN(1000))
		}
	}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	p := &plan.Sort{Keys: []plan.SortKey{{Col: 1, Desc: true}}, Limit: konst(int64(10))}
	b.ReportAllocs()
	for b.Loop() {
		s, err := newSort(c, p, &batchesOp{bs: bs})
		if err != nil {
			b.Fatal(err)
		}
		for {
			out, err := s.Next()
			if err != nil {
				b.Fatal(err)
			}
			if out == nil {
				break
			}
		}
	}
}

// BenchmarkAggDictKey groups 256K nodes of a base by a 200-value string
// property with count(*) and avg (Q2's shape) on dictionary codes.
func BenchmarkAggDictKey(b *testing.B) {
	st := storage.New()
	cat := st.Catalog()
	l, kc, ka := cat.EnsureLabel("P"), cat.EnsureKey("city"), cat.EnsureKey("v")
	tx := st.Begin()
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 1 << 18 {
		city := fmt.Sprintf("City%03d", min(rng.IntN(400), rng.IntN(400))%200)
		if _, err := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{kc, ka}, []vector.Value{city, int64(i % 60)}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	// Read back from a base, as a server opens an imported directory:
	// the column's chunks then share one dictionary.
	dir := b.TempDir()
	if _, err := st.SaveBase(dir); err != nil {
		b.Fatal(err)
	}
	st, err := storage.OpenBase(dir)
	if err != nil {
		b.Fatal(err)
	}
	cat = st.Catalog()
	p := aggregate(scanP(), []plan.Expr{prop(0, "city")},
		plan.AggCall{Func: functions.AggCount}, plan.AggCall{Func: functions.AggAvg, Arg: prop(0, "v")})
	rtx := st.Begin()
	defer rtx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: rtx, Catalog: cat}}
	b.ReportAllocs()
	for b.Loop() {
		in, err := Build(c, p.Input)
		if err != nil {
			b.Fatal(err)
		}
		h, err := newHashAggregate(c, p, in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPooledStateStartsAtZero runs aggregations one after another so the
// later ones reuse the pooled arrays of the earlier (rowstore.GrowInts): their
// counts and sums must start at zero however the arrays grow.
func TestPooledStateStartsAtZero(t *testing.T) {
	col := func(i int) plan.Expr { return &plan.ColRef{Idx: i, T: vector.Int64} }
	p := &plan.Aggregate{Keys: []plan.Expr{col(0)},
		Aggs: []plan.AggCall{{Func: functions.AggCount}, {Func: functions.AggSum, Arg: col(1)}},
		Cols: []plan.Column{{Name: "k"}, {Name: "n"}, {Name: "s"}}}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	for _, n := range []int{200000, 70000, 150000, 90000} {
		h, err := newHashAggregate(c, p, &batchesOp{bs: intKeyBatches(n, 1)})
		if err != nil {
			t.Fatal(err)
		}
		rows := drain(t, h)
		if len(rows) != n {
			t.Fatalf("%d groups, want %d", len(rows), n)
		}
		for i, r := range rows {
			if want := fmt.Sprintf("%d|1|1", i); r != want {
				t.Fatalf("after reuse, %d groups: row %d = %s, want %s", n, i, r, want)
			}
		}
	}
}

// TestDictKeyParallel groups on codes in parallel workers, which code the
// store's sealed chunks concurrently on first use, and compares with one
// worker.
func TestDictKeyParallel(t *testing.T) {
	st := parallelStore(t, 6*storage.GroupSize+100)
	p := aggregate(scanP(), []plan.Expr{prop(0, "name")},
		plan.AggCall{Func: functions.AggCount}, plan.AggCall{Func: functions.AggSum, Arg: prop(0, "v")})
	want, _ := runPar(t, st, p, 1, false)
	for range 3 {
		if got, _ := runPar(t, st, p, 4, false); !slices.Equal(got, want) {
			t.Fatalf("4 workers\n%v\none\n%v", got, want)
		}
	}
}
