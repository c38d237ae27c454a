package exec

import (
	"context"
	"fmt"
	"github.com/quiverdb/quiver/engine/functions"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/plan/physical"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// parallelStore is a graph of n :P nodes (v = i mod 7, name for even i)
// with a KNOWS relationship from i to (13·i) mod n and, for every fifth
// node, one to node 0 (a hub whose incoming list spans morsels).
func parallelStore(t *testing.T, n int) *storage.Store {
	t.Helper()
	st := storage.New()
	cat := st.Catalog()
	p := cat.EnsureLabel("P")
	knows := cat.EnsureType("KNOWS")
	kv, kname := cat.EnsureKey("v"), cat.EnsureKey("name")
	tx := st.Begin()
	for i := range n {
		keys, vals := []catalog.KeyID{kv}, []vector.Value{int64(i % 7)}
		if i%2 == 0 {
			keys, vals = append(keys, kname), append(vals, fmt.Sprintf("n%d", i%11))
		}
		if _, err := tx.CreateNode([]catalog.LabelID{p}, keys, vals); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if _, err := tx.CreateRel(knows, uint64(i), uint64(13*i%n), nil, nil); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			if _, err := tx.CreateRel(knows, uint64(i), 0, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return st
}

// Plans are built by hand here (exec sits below the parser): a scan of
// (a:P), expansions over KNOWS to b, filters, projections, aggregates.
var (
	colA = plan.Column{Name: "a", Type: vector.Node}
	colR = plan.Column{Name: "r", Type: vector.Rel}
	colB = plan.Column{Name: "b", Type: vector.Node}
)

func scanP() *plan.NodeScan {
	return &plan.NodeScan{Var: "a", Labels: []string{"P"}, Cols: []plan.Column{colA}}
}

func expandP(in plan.Operator, dir plan.Direction) *plan.Expand {
	return &plan.Expand{Input: in, RelVar: "r", ToVar: "b", Types: []string{"KNOWS"}, Dir: dir, Into: -1,
		Cols: []plan.Column{colA, colR, colB}}
}

func prop(col int, key string) plan.Expr {
	return &plan.Property{Of: &plan.ColRef{Idx: col, T: vector.Node}, Key: key}
}

func konst(v vector.Value) plan.Expr { return &plan.Const{Val: v, T: vector.TypeOf(v)} }

func cmpOp(op plan.BinOp, l, r plan.Expr) plan.Expr { return &plan.Binary{Op: op, L: l, R: r} }

func aggregate(in plan.Operator, keys []plan.Expr, aggs ...plan.AggCall) *plan.Aggregate {
	a := &plan.Aggregate{Input: in, Keys: keys, Aggs: aggs}
	for range len(keys) + len(aggs) {
		a.Cols = append(a.Cols, plan.Column{Name: "c", Type: vector.Any})
	}
	return a
}

// cell renders a value for comparison: floats to 9 digits (sums in
// another order differ in the last bits), lists sorted (collect() gathers
// in any order).
func cell(v vector.Value) string {
	switch x := v.(type) {
	case float64:
		return fmt.Sprintf("%.9g", x)
	case []vector.Value:
		var es []string
		for _, e := range x {
			es = append(es, cell(e))
		}
		sort.Strings(es)
		return "[" + strings.Join(es, " ") + "]"
	}
	return fmt.Sprint(v)
}

// runPar runs a plan at the given parallelism and returns its rows
// (sorted) and the closed context.
func runPar(t *testing.T, st *storage.Store, root plan.Operator, par int, prof bool) ([]string, *Context) {
	t.Helper()
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}, Parallelism: par}
	chosen(root)
	if prof {
		c.Profile = NewProfile()
	}
	op, err := Build(c, root)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatalf("%s: %v", plan.Format(root), err)
		}
		if b == nil {
			break
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
	c.Close()
	sort.Strings(rows)
	return rows, c
}

func TestParallelMatchesSerial(t *testing.T) {
	// More than minScanMorsels morsels: the pipelines without an
	// expansion run on workers too.
	n := 80 * vector.Capacity
	st := parallelStore(t, n)
	av, bv, aname, bname := prop(0, "v"), prop(2, "v"), prop(0, "name"), prop(2, "name")
	half := konst(0.5)
	vl := &plan.VarLengthExpand{Input: scanP(), Types: []string{"KNOWS"}, Dir: plan.Out, Min: 1, Max: 2, Into: -1,
		ToVar: "b", Cols: []plan.Column{colA, {Name: "rs", Type: vector.Any, Hidden: true}, colB}}
	for _, tc := range []struct {
		name string
		root plan.Operator
	}{
		// A FLOAT constant: an INTEGER one would make the count a
		// countRange over the column's view, which needs no workers.
		{"scan-filter-count", aggregate(&plan.Filter{Input: scanP(), Pred: cmpOp(plan.OpGt, av, konst(2.5))}, nil,
			plan.AggCall{Func: functions.AggCount})},
		{"expand-group", aggregate(expandP(scanP(), plan.Out), []plan.Expr{bv},
			plan.AggCall{Func: functions.AggCount}, plan.AggCall{Func: functions.AggSum, Arg: av},
			plan.AggCall{Func: functions.AggMin, Arg: aname}, plan.AggCall{Func: functions.AggMax, Arg: bname},
			plan.AggCall{Func: functions.AggAvg, Arg: av}, plan.AggCall{Func: functions.AggStDev, Arg: av},
			plan.AggCall{Func: functions.AggStDevP, Arg: bv}, plan.AggCall{Func: functions.AggCollect, Arg: bname})},
		{"expand-distinct", aggregate(expandP(scanP(), plan.In), []plan.Expr{av},
			plan.AggCall{Func: functions.AggCount, Arg: bv, Distinct: true},
			plan.AggCall{Func: functions.AggCollect, Arg: aname, Distinct: true},
			plan.AggCall{Func: functions.AggPercentileDisc, Arg: bv, P: half},
			plan.AggCall{Func: functions.AggPercentileCont, Arg: bv, P: konst(0.3), Distinct: true},
			plan.AggCall{Func: functions.AggSum, Arg: bv, Distinct: true},
			plan.AggCall{Func: functions.AggStDev, Arg: bv, Distinct: true},
			plan.AggCall{Func: functions.AggMin, Arg: bname, Distinct: true})},
		{"expand-filter-project", &plan.Project{
			Input: &plan.Filter{Input: expandP(scanP(), plan.Both), Pred: cmpOp(plan.OpEq, bv, konst(int64(3)))},
			Exprs: []plan.Expr{av, bv}, Cols: []plan.Column{{Name: "av", Type: vector.Any}, {Name: "bv", Type: vector.Any}}}},
		{"varlength", aggregate(&plan.Filter{Input: vl, Pred: cmpOp(plan.OpEq, av, konst(int64(1)))}, nil,
			plan.AggCall{Func: functions.AggCount}, plan.AggCall{Func: functions.AggCount, Arg: &plan.ColRef{Idx: 2, T: vector.Node}, Distinct: true})},
		{"filter-group", aggregate(&plan.Filter{Input: scanP(), Pred: &plan.IsNull{X: aname, Negate: true}}, []plan.Expr{aname},
			plan.AggCall{Func: functions.AggCollect, Arg: av})},
	} {
		warmViews(st)
		serial, sc := runPar(t, st, tc.root, 1, false)
		par, pc := runPar(t, st, tc.root, 4, false)
		if strings.Join(serial, "\n") != strings.Join(par, "\n") {
			t.Errorf("%s: %d rows serial, %d parallel\nserial %v\nparallel %v", tc.name, len(serial), len(par), head3(serial), head3(par))
		}
		t.Logf("%s: %d rows", tc.name, len(serial))
		if len(serial) == 0 || serial[0] == "0" {
			t.Errorf("%s: no rows to compare", tc.name)
		}
		if sc.par != nil && len(sc.par.runs) > 0 {
			t.Errorf("%s: ran in parallel at parallelism 1", tc.name)
		}
		if pc.par == nil || len(pc.par.runs) == 0 || pc.par.runs[0].n < 2 {
			t.Errorf("%s: did not run on several workers", tc.name)
		}
		if sc.Counters.RowsScanned != pc.Counters.RowsScanned || sc.Counters.DBHits != pc.Counters.DBHits {
			t.Errorf("%s: serial scanned %d rows (%d hits), parallel %d (%d)", tc.name,
				sc.Counters.RowsScanned, sc.Counters.DBHits, pc.Counters.RowsScanned, pc.Counters.DBHits)
		}
	}
}

// chosen runs the physical-planning pass over a plan built by hand, with
// the rules off given, as the engine's optimizer does before Build.
func chosen[T plan.Operator](root T, off ...string) T {
	opts := plan.Options{Disabled: map[string]bool{}}
	for _, r := range off {
		opts.Disabled[r] = true
	}
	physical.Choose(&plan.Plan{Root: root, Options: opts})
	return root
}

func head3(rows []string) []string { return rows[:min(3, len(rows))] }

// TestMorselsSizedByEdges checks that morsels are cut by the degrees of
// the first expansion: the hub (node 0, with n/5 incoming KNOWS) makes a
// morsel alone, and every morsel stays near the target weight.
func TestMorselsSizedByEdges(t *testing.T) {
	n := 40 * vector.Capacity
	st := parallelStore(t, n)
	agg := plan.Operator(expandP(scanP(), plan.In))
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}}
	src, err := newMorselSource(c, physical.ChainScan(agg), agg)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	total := 0
	for {
		m := src.take(nil)
		if len(m) == 0 {
			break
		}
		if len(m) > 1 && m[0] == 0 {
			t.Errorf("the hub with %d relationships should be a morsel of its own, got %d nodes", n/5, len(m))
		}
		sizes = append(sizes, len(m))
		total += len(m)
	}
	if total != n {
		t.Errorf("morsels cover %d nodes, want %d", total, n)
	}
	// Weight 1 + indegree: about 2 per node, so about morselWeight/2
	// nodes a morsel, never more than morselWeight.
	for i, sz := range sizes[1 : len(sizes)-1] {
		if sz < morselWeight/4 || sz > morselWeight {
			t.Errorf("morsel %d has %d nodes", i+1, sz)
		}
	}
	if want := int64(n + n + n/5); src.expected != want {
		t.Errorf("expected weight %d, want %d", src.expected, want)
	}
}

// warmViews builds the dense views (storage.IntView) of every INTEGER
// column, which a range filter reads once they pay for themselves: rows
// and hits counted before and after differ, so runs that compare counters
// start with them built.
func warmViews(st *storage.Store) {
	snap := st.Snapshot()
	for k := 0; k < st.Catalog().NumKeys(); k++ {
		snap.NodeIntView(catalog.KeyID(k), math.MaxInt32)
		snap.RelIntView(catalog.KeyID(k), math.MaxInt32)
	}
}

// TestParallelProfileSumsWorkers checks that PROFILE counts each
// operator's rows over all workers.
func TestParallelProfileSumsWorkers(t *testing.T) {
	st := parallelStore(t, 40*vector.Capacity)
	root := aggregate(&plan.Filter{Input: expandP(scanP(), plan.Out), Pred: cmpOp(plan.OpGt, prop(2, "v"), konst(int64(3)))},
		[]plan.Expr{prop(0, "v")}, plan.AggCall{Func: functions.AggCount})
	warmViews(st)
	_, sc := runPar(t, st, root, 1, true)
	_, pc := runPar(t, st, root, 4, true)
	so, po := sc.Profile.Operators(root), pc.Profile.Operators(root)
	if len(so) != len(po) {
		t.Fatalf("profiles differ in length: %d and %d", len(so), len(po))
	}
	for i := range so {
		if so[i].Name != po[i].Name || so[i].Rows != po[i].Rows || so[i].DBHits != po[i].DBHits {
			t.Errorf("operator %d: serial %s rows %d hits %d, parallel %s rows %d hits %d", i,
				so[i].Name, so[i].Rows, so[i].DBHits, po[i].Name, po[i].Rows, po[i].DBHits)
		}
	}
}

// TestParallelCancelAndMemory checks that a cancelled query and one over
// its memory budget stop every worker with the right error.
func TestParallelCancelAndMemory(t *testing.T) {
	st := parallelStore(t, 40*vector.Capacity)
	run := func(root plan.Operator, c *Context) error {
		tx := st.Begin()
		defer tx.Rollback()
		c.Tx, c.Catalog, c.Parallelism = tx, st.Catalog(), 4
		defer c.Close()
		op, err := Build(c, chosen(root))
		if err != nil {
			return err
		}
		for {
			b, err := op.Next()
			if err != nil || b == nil {
				return err
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := run(aggregate(expandP(scanP(), plan.Out), []plan.Expr{prop(2, "v")}, plan.AggCall{Func: functions.AggCount}), &Context{Env: expr.Env{Ctx: ctx}})
	if e, ok := err.(*errs.Error); !ok || e.Code != errs.CodeTransaction {
		t.Errorf("cancelled: got %v", err)
	}
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	c.Mem.Limit = 64 * int64(vector.Capacity)
	err = run(aggregate(expandP(scanP(), plan.Out), nil, plan.AggCall{Func: functions.AggCollect, Arg: prop(2, "name")}), c)
	if e, ok := err.(*errs.Error); !ok || e.Code != errs.CodeOutOfMemory {
		t.Errorf("over budget: got %v", err)
	}
	if c.Mem.Used() <= c.Mem.Limit {
		t.Errorf("the workers charged %d bytes to the query, limit %d", c.Mem.Used(), c.Mem.Limit)
	}
}

// TestMorselsFromOffsets: over a compacted adjacency (no overlay) the
// morsels of consecutive ids are cut from CSR offsets by binary search;
// they must be exactly those of summing the degrees node by node.
func TestMorselsFromOffsets(t *testing.T) {
	n := 40 * vector.Capacity
	st := parallelStore(t, n)
	st.Compact()
	for _, dir := range []plan.Direction{plan.In, plan.Out, plan.Both} {
		agg := plan.Operator(expandP(scanP(), dir))
		tx := st.Begin()
		c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}}
		src, err := newMorselSource(c, physical.ChainScan(agg), agg)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := newMorselSource(c, physical.ChainScan(agg), agg)
		if err != nil {
			t.Fatal(err)
		}
		if dir != plan.Both && (len(src.adjs) != 1 || src.adjs[0].adj.OverlaySize() != 0) {
			t.Fatalf("%v: want one compacted adjacency, have %d", dir, len(src.adjs))
		}
		var morsels int
		for {
			got := src.take(nil)
			// The reference: the per-node rule.
			var want []uint32
			for w := 0; w < morselWeight; {
				if len(ref.pending) == 0 {
					k := ref.it.NextMany(ref.buf)
					if k == 0 {
						break
					}
					ref.pending = ref.buf[:k]
				}
				id := ref.pending[0]
				ref.pending = ref.pending[1:]
				want = append(want, id)
				w++
				for _, a := range ref.adjs {
					w += a.adj.Degree(uint64(id))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%v: morsel %d: %d ids from %v, want %d from %v", dir, morsels, len(got), got[:min(1, len(got))], len(want), want[:min(1, len(want))])
			}
			if len(got) == 0 {
				break
			}
			morsels++
		}
		if morsels < 3 {
			t.Fatalf("%v: only %d morsels", dir, morsels)
		}
		tx.Rollback()
	}
}

// TestParallelIntersectGathers runs a triangle (an ExpandIntersect at the
// top of a pipeline, nothing above it) on workers: the intersection maps
// rows one by one like an Expand, and already ran on workers under a
// Filter or an Aggregate, so it must not stop a pipeline from running in
// parallel when it comes last.
func TestParallelIntersectGathers(t *testing.T) {
	n := 40 * vector.Capacity
	st := parallelStore(t, n)
	colC := plan.Column{Name: "c", Type: vector.Node}
	hop := &plan.Expand{Input: scanP(), RelVar: "r", ToVar: "b", Types: []string{"KNOWS"}, Dir: plan.Both, Into: -1,
		Cols: []plan.Column{colA, colR, colB}}
	first := &plan.Expand{Input: hop, From: 2, RelVar: "s", ToVar: "c", Types: []string{"KNOWS"}, Dir: plan.Both, Into: -1,
		Cols: []plan.Column{colA, colR, colB, {Name: "s", Type: vector.Rel}, colC}}
	closing := &plan.Expand{Input: first, From: 4, RelVar: "t", Types: []string{"KNOWS"}, Dir: plan.Both, Into: 0,
		Cols: []plan.Column{colA, colR, colB, {Name: "s", Type: vector.Rel}, colC, {Name: "t", Type: vector.Rel}}}
	root := &plan.ExpandIntersect{First: first, Close: closing}
	serial, _ := runPar(t, st, root, 1, false)
	par, pc := runPar(t, st, root, 4, false)
	if len(serial) == 0 {
		t.Fatal("no triangles to compare")
	}
	if strings.Join(serial, "\n") != strings.Join(par, "\n") {
		t.Errorf("%d rows serial, %d parallel", len(serial), len(par))
	}
	if pc.par == nil || len(pc.par.runs) == 0 || pc.par.runs[0].n < 2 {
		t.Fatalf("a pipeline ending in ExpandIntersect did not run on several workers")
	}
	// The intersection itself runs on the workers, not on the consumer
	// over the gathered rows of the expansion below it.
	if top := pc.par.runs[0].top; top != plan.Operator(root) {
		t.Errorf("the workers run the pipeline up to %s, not the ExpandIntersect over it", plan.OperatorName(top))
	}
}

// TestParallelFallbackProfiled checks that PROFILE names the guard that
// kept a pipeline the physical pass chose to run on workers serial.
func TestParallelFallbackProfiled(t *testing.T) {
	for _, tc := range []struct {
		nodes, par int
		want       string
	}{
		{40 * vector.Capacity, 1, "parallel: one worker allowed"},
		{1, 4, "parallel: one morsel"}, // less than a morsel at any batch size
		{40 * vector.Capacity, 4, ""},
	} {
		st := parallelStore(t, tc.nodes)
		root := aggregate(expandP(scanP(), plan.Out), nil, plan.AggCall{Func: functions.AggCount})
		_, c := runPar(t, st, root, tc.par, true)
		var got []string
		for _, op := range c.Profile.Operators(root) {
			got = append(got, op.Fallbacks...)
		}
		if want := []string{tc.want}; tc.want == "" && len(got) != 0 || tc.want != "" && !slices.Equal(got, want) {
			t.Errorf("%d nodes, parallelism %d: fallbacks %q, want %q", tc.nodes, tc.par, got, tc.want)
		}
	}
}

// TestShortScanStaysSerial checks that a pipeline without an expansion
// runs on workers only from minScanMorsels morsels of nodes on: below,
// its rows cost less than a second worker's start and hand-offs, and
// PROFILE says why it stayed serial.
func TestShortScanStaysSerial(t *testing.T) {
	for _, tc := range []struct {
		nodes int
		want  string
	}{
		{2 * morselWeight, "parallel: a short scan"},
		{minScanMorsels * morselWeight, ""},
	} {
		st := parallelStore(t, tc.nodes)
		// A FLOAT constant: an INTEGER one would make the count a
		// countRange, which needs no workers.
		filter := &plan.Filter{Input: scanP(), Pred: cmpOp(plan.OpGt, prop(0, "v"), konst(2.5))}
		root := aggregate(filter, nil, plan.AggCall{Func: functions.AggCount})
		rows, c := runPar(t, st, root, 2, true)
		var got []string
		for _, op := range c.Profile.Operators(root) {
			for _, f := range op.Fallbacks {
				if strings.HasPrefix(f, "parallel:") {
					got = append(got, f)
				}
			}
		}
		if want := []string{tc.want}; tc.want == "" && len(got) != 0 || tc.want != "" && !slices.Equal(got, want) {
			t.Errorf("%d nodes: fallbacks %q, want %q", tc.nodes, got, tc.want)
		}
		if par := c.par != nil && len(c.par.runs) > 0; par != (tc.want == "") {
			t.Errorf("%d nodes: ran on workers %v", tc.nodes, par)
		}
		// v = i%7 > 2 holds for 4 of every 7 nodes.
		if want := fmt.Sprint(tc.nodes/7*4 + max(tc.nodes%7-3, 0)); len(rows) != 1 || rows[0] != want {
			t.Errorf("%d nodes: count %v, want %s", tc.nodes, rows, want)
		}
	}
}

// TestParallelFallbacksOfWorkers checks that PROFILE keeps the fallbacks
// the workers of a parallel pipeline noted, as it keeps their counts: a
// Filter on workers whose parameter is neither an integer nor a string
// turns down both filter strategies the pass chose for it.
func TestParallelFallbacksOfWorkers(t *testing.T) {
	st := parallelStore(t, 40*vector.Capacity)
	root := chosen(&plan.Filter{Input: scanP(), Pred: cmpOp(plan.OpEq, prop(0, "name"), &plan.Param{Name: "p", T: vector.Any})})
	if !plan.Chose(root, plan.StrategyParallel) {
		t.Fatalf("the Filter does not run on workers: %v", plan.StrategiesOf(root))
	}
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog(),
		Params: map[string]vector.Value{"p": []vector.Value{"n3"}}}, Parallelism: 4, Profile: NewProfile()}
	op, err := Build(c, root)
	if err != nil {
		t.Fatal(err)
	}
	if rows := drain(t, op); len(rows) != 0 {
		t.Errorf("%d rows equal to a list", len(rows))
	}
	got := c.Profile.Operators(root)[0].Fallbacks
	for _, want := range []string{"range-filter: $p is not an integer", "code-filter: $p is not a string"} {
		if !slices.Contains(got, want) {
			t.Errorf("fallbacks %q, want %q among them", got, want)
		}
	}
}

// TestScansOfConsecutiveIds checks that a scan alone over one range of
// ids is cut into ranges of morselWeight ids covering it once, yielded by
// the workers' scans as those ids in order, and that a serial scan counts
// them out too; and that a scan with a hole (a deleted node) or weighed
// by an expansion reads its ids instead, the serial one yielding every
// id but the hole.
func TestScansOfConsecutiveIds(t *testing.T) {
	n := 5*morselWeight/2 + 3
	st := parallelStore(t, n)
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}}
	scan := scanP()
	src, err := newMorselSource(c, scan, scan)
	if err != nil {
		t.Fatal(err)
	}
	if !src.consecutive {
		t.Fatal("a scan of ids 0..n-1 alone is not cut as ranges")
	}
	c.worker = &workerState{scan: scan, src: src}
	checkCounted(t, "the morsels", scannedIDs(t, newMorselScan(c)), n)
	if c.Counters.RowsScanned != int64(n) {
		t.Errorf("%d rows scanned, want %d", c.Counters.RowsScanned, n)
	}

	agg := plan.Operator(expandP(scanP(), plan.In))
	if src, err := newMorselSource(c, physical.ChainScan(agg), agg); err != nil || src.consecutive {
		t.Errorf("a scan weighed by its expansion is cut as ranges (%v)", err)
	}
	if _, _, err := tx.DeleteNode(7, true); err != nil {
		t.Fatal(err)
	}
	if src, err := newMorselSource(c, scan, scan); err != nil || src.consecutive {
		t.Errorf("a scan with a hole is cut as ranges (%v)", err)
	}
	c.worker = nil
	ns := newNodeScan(c, scan)
	got := scannedIDs(t, ns)
	if ns.consecutive || len(got) != n-1 || got[6] != 6 || got[7] != 8 || got[n-2] != uint64(n-1) {
		t.Errorf("serial scan with a hole: consecutive %v, %d ids", ns.consecutive, len(got))
	}
}

// TestSerialScanOfConsecutiveIds checks that a serial scan of one range
// of ids counts them out in order, Capacity at a time.
func TestSerialScanOfConsecutiveIds(t *testing.T) {
	n := 3*vector.Capacity + 5
	st := parallelStore(t, n)
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}}
	ns := newNodeScan(c, scanP())
	checkCounted(t, "the serial scan", scannedIDs(t, ns), n)
	if !ns.consecutive || c.Counters.RowsScanned != int64(n) {
		t.Errorf("consecutive %v, %d scanned; want %d", ns.consecutive, c.Counters.RowsScanned, n)
	}
}

// scannedIDs drains a scan of node ids, no batch above Capacity.
func scannedIDs(t *testing.T, op Operator) []uint64 {
	t.Helper()
	var ids []uint64
	for {
		b, err := op.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return ids
		}
		if b.Rows() > vector.Capacity {
			t.Fatalf("a batch of %d ids", b.Rows())
		}
		for i := range b.Rows() {
			ids = append(ids, b.Cols[0].IDs[b.Row(i)])
		}
	}
}

// checkCounted fails unless ids are 0..n-1 in order.
func checkCounted(t *testing.T, what string, ids []uint64, n int) {
	t.Helper()
	for i, id := range ids {
		if id != uint64(i) {
			t.Fatalf("%s: id %d where %d comes", what, id, i)
		}
	}
	if len(ids) != n {
		t.Fatalf("%s yielded %d ids, want %d", what, len(ids), n)
	}
}
