package exec

import (
	"context"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// TestLabelScanBitmaps: a LabelScan yields, in id order, the nodes of its
// expression from the label bitmaps — ! over the live nodes, % over every
// label, a label the catalog does not know holding for none — reading
// each node it yields once (no test of the other nodes), and charges the
// bitmaps it builds to the statement, so a tight limit fails it.
func TestLabelScanBitmaps(t *testing.T) {
	s := storage.New()
	cat := s.Catalog()
	a, b := cat.EnsureLabel("A"), cat.EnsureLabel("B")
	tx := s.Begin()
	mk := func(labels ...catalog.LabelID) uint32 {
		n, err := tx.CreateNode(labels, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(n)
	}
	na, nab, nb, none := mk(a), mk(a, b), mk(b), mk()
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	name := func(n string) *plan.LabelExpr { return &plan.LabelExpr{Kind: plan.LabelName, Name: n} }
	op := func(k plan.LabelKind, args ...*plan.LabelExpr) *plan.LabelExpr {
		return &plan.LabelExpr{Kind: k, Args: args}
	}
	for _, tc := range []struct {
		e    *plan.LabelExpr
		want []uint32
	}{
		{op(plan.LabelOr, name("A"), name("B")), []uint32{na, nab, nb}},
		{op(plan.LabelAnd, name("A"), op(plan.LabelNot, name("B"))), []uint32{na}},
		{op(plan.LabelNot, name("A")), []uint32{nb, none}},
		{op(plan.LabelAny), []uint32{na, nab, nb}},
		{op(plan.LabelNot, op(plan.LabelAny)), []uint32{none}},
		{op(plan.LabelOr, name("Nope"), name("B")), []uint32{nab, nb}},
		{op(plan.LabelNot, name("Nope")), []uint32{na, nab, nb, none}},
	} {
		scan := &plan.LabelScan{Var: "n", Expr: tc.e, Cols: []plan.Column{{Name: "n", Type: vector.Node}}}
		ctx := &Context{Env: expr.Env{Ctx: context.Background(), Tx: s.Begin(), Catalog: cat}}
		it, err := Build(ctx, scan)
		if err != nil {
			t.Fatal(err)
		}
		built := ctx.Mem.Used()
		var got []uint32
		for {
			bt, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if bt == nil {
				break
			}
			for i := 0; i < bt.Rows(); i++ {
				got = append(got, uint32(bt.Cols[0].IDs[bt.Row(i)]))
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.e, got, tc.want)
		}
		if ctx.Counters.DBHits != int64(len(tc.want)) {
			t.Errorf("%s: %d db hits for %d nodes", tc.e, ctx.Counters.DBHits, len(tc.want))
		}
		if tc.e.Kind != plan.LabelName && ctx.Mem.Used() == built {
			t.Errorf("%s: the bitmaps built were not charged", tc.e)
		}
	}
	ctx := &Context{Env: expr.Env{Ctx: context.Background(), Tx: s.Begin(), Catalog: cat}}
	it, err := Build(ctx, &plan.LabelScan{Var: "n", Expr: op(plan.LabelNot, name("A")), Cols: []plan.Column{{Name: "n", Type: vector.Node}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx.Mem.Limit = ctx.Mem.Used() + 1
	if _, err := it.Next(); err == nil {
		t.Error("a scan over its memory limit ran")
	} else if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Errorf("over the limit: %v, want 53200", err)
	}
}
