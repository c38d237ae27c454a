package exec

import (
	"context"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// An adaptive hash join gives the rows of the CrossProduct and Filter it
// replaces, columns in place, whichever side is the larger: a Left past
// adaptiveRows is probed (its rows read while choosing first), a short
// one hashed, or one row whose one key is compared by value; with null
// keys on both sides.
func TestAdaptiveHashJoinMatchesCrossProduct(t *testing.T) {
	const n = adaptiveRows + 5000
	st := storage.New()
	cat := st.Catalog()
	lbl := cat.EnsureLabel("P")
	kid, kk := cat.EnsureKey("id"), cat.EnsureKey("k")
	tx := st.Begin()
	for i := range n {
		keys, vals := []catalog.KeyID{kid}, []vector.Value{int64(i)}
		if i%97 != 0 {
			keys, vals = append(keys, kk), append(vals, int64(i%1000))
		}
		if _, err := tx.CreateNode([]catalog.LabelID{lbl}, keys, vals); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	scan := func(v string) *plan.NodeScan {
		return &plan.NodeScan{Var: v, Labels: []string{"P"}, Cols: []plan.Column{{Name: v, Type: vector.Node}}}
	}
	few := func(v string) plan.Operator { // ids below 300: 297 rows, three with a null k
		return &plan.Filter{Input: scan(v), Pred: cmpOp(plan.OpLt, prop(0, "id"), konst(int64(300)))}
	}
	one := func(v string) plan.Operator { // id 5: one row, one key (hashjoin_one.go)
		return &plan.Filter{Input: scan(v), Pred: cmpOp(plan.OpEq, prop(0, "id"), konst(int64(5)))}
	}
	// First one key against few rows, before k's integer view pays (the
	// gathered column is compared), then against every row (through the
	// view, once built).
	cols := []plan.Column{{Name: "a", Type: vector.Node}, {Name: "b", Type: vector.Node}}
	for _, shape := range []string{"one left, few right", "big left", "few left", "one left"} {
		left, right := plan.Operator(scan("a")), few("b")
		switch shape {
		case "one left, few right":
			left = one("a")
		case "few left":
			left, right = few("a"), scan("b")
		case "one left":
			left, right = one("a"), scan("b")
		}
		eq := cmpOp(plan.OpEq, prop(0, "k"), prop(1, "k"))
		run := func(join plan.Operator) []string {
			rtx := st.Begin()
			defer rtx.Rollback()
			c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: rtx, Catalog: cat}}
			root := &plan.Project{Input: &plan.Filter{Input: join, Pred: eq},
				Exprs: []plan.Expr{prop(0, "id"), prop(1, "id")},
				Cols:  []plan.Column{{Name: "a", Type: vector.Any}, {Name: "b", Type: vector.Any}}}
			op, err := Build(c, chosen(root))
			if err != nil {
				t.Fatal(err)
			}
			rows := drain(t, op)
			slices.Sort(rows)
			return rows
		}
		want := run(&plan.CrossProduct{Left: left, Right: right, Cols: cols})
		got := run(&plan.HashJoin{Left: left, Right: right, Cols: cols, Adaptive: true,
			LeftKey: prop(0, "k"), RightKey: prop(0, "k")})
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Fatalf("%s: %d rows joined, %d crossed and filtered", shape, len(got), len(want))
		}
	}
}
