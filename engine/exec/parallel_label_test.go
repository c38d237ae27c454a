package exec

import (
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// labelledStore is n nodes, A on every third (i mod 3 = 0), B on every
// even one, none on the rest, each with v = i mod 7, and a KNOWS
// relationship from i to (13·i) mod n.
func labelledStore(t *testing.T, n int) *storage.Store {
	t.Helper()
	st := storage.New()
	cat := st.Catalog()
	a, b := cat.EnsureLabel("A"), cat.EnsureLabel("B")
	knows := cat.EnsureType("KNOWS")
	kv := cat.EnsureKey("v")
	tx := st.Begin()
	for i := range n {
		var labels []catalog.LabelID
		if i%3 == 0 {
			labels = append(labels, a)
		}
		if i%2 == 0 {
			labels = append(labels, b)
		}
		if _, err := tx.CreateNode(labels, []catalog.KeyID{kv}, []vector.Value{int64(i % 7)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if _, err := tx.CreateRel(knows, uint64(i), uint64(13*i%n), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return st
}

func lname(n string) *plan.LabelExpr { return &plan.LabelExpr{Kind: plan.LabelName, Name: n} }

func labelOp(k plan.LabelKind, args ...*plan.LabelExpr) *plan.LabelExpr {
	return &plan.LabelExpr{Kind: k, Args: args}
}

// TestParallelLabelScan: a pipeline over a LabelScan runs on workers as
// one over a NodeScan does, cut into morsels from the expression's
// bitmap, and answers and counts as the serial run; the counts are those
// of the labels (per 6 nodes: A on 2, B on 3, both on 1).
func TestParallelLabelScan(t *testing.T) {
	n := 96 * vector.Capacity // a multiple of 6
	st := labelledStore(t, n)
	for _, tc := range []struct {
		e      *plan.LabelExpr
		expand bool
		want   int // nodes the expression holds for
	}{
		{labelOp(plan.LabelOr, lname("A"), lname("B")), false, n / 6 * 4},
		{labelOp(plan.LabelNot, lname("A")), false, n / 6 * 4},
		{labelOp(plan.LabelAnd, lname("B"), labelOp(plan.LabelNot, lname("A"))), true, n / 6 * 2},
		{&plan.LabelExpr{Kind: plan.LabelAny}, true, n / 6 * 4},
	} {
		scan := &plan.LabelScan{Var: "a", Expr: tc.e, Cols: []plan.Column{colA}}
		var in plan.Operator = &plan.Filter{Input: scan, Pred: cmpOp(plan.OpGt, prop(0, "v"), konst(-0.5))}
		if tc.expand {
			in = expandP(scan, plan.Out)
		}
		root := aggregate(in, nil, plan.AggCall{Func: functions.AggCount})
		serial, sc := runPar(t, st, root, 1, false)
		par, pc := runPar(t, st, root, 4, false)
		if len(serial) != 1 || serial[0] != fmt.Sprint(tc.want) {
			t.Errorf("%s: serial count %v, want %d", tc.e, serial, tc.want)
		}
		if len(par) != 1 || par[0] != serial[0] {
			t.Errorf("%s: parallel count %v, serial %v", tc.e, par, serial)
		}
		if pc.par == nil || len(pc.par.runs) == 0 || pc.par.runs[0].n < 2 {
			t.Errorf("%s: did not run on several workers", tc.e)
		}
		if sc.Counters.RowsScanned != pc.Counters.RowsScanned || sc.Counters.DBHits != pc.Counters.DBHits {
			t.Errorf("%s: serial scanned %d rows (%d hits), parallel %d (%d)", tc.e,
				sc.Counters.RowsScanned, sc.Counters.DBHits, pc.Counters.RowsScanned, pc.Counters.DBHits)
		}
	}
	// A short expression stays serial, as a short label scan does.
	small := labelledStore(t, 2*morselWeight)
	scan := &plan.LabelScan{Var: "a", Expr: labelOp(plan.LabelOr, lname("A"), lname("B")), Cols: []plan.Column{colA}}
	root := aggregate(&plan.Filter{Input: scan, Pred: cmpOp(plan.OpGt, prop(0, "v"), konst(-0.5))}, nil, plan.AggCall{Func: functions.AggCount})
	if _, c := runPar(t, small, root, 4, false); c.par != nil && len(c.par.runs) > 0 {
		t.Errorf("a scan of %d nodes ran on workers", 2*morselWeight/3*2)
	}
}
