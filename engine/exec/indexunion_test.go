package exec

import (
	"context"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// TestIndexUnionCandidates: the union yields, once each and in id
// order, the seeks' answers and the uncovered nodes holding the key; a
// seek whose index is gone, or whose value the index cannot compare,
// leaves its label to the residual (a superset the Filter above cuts).
func TestIndexUnionCandidates(t *testing.T) {
	s := storage.New()
	cat := s.Catalog()
	a, b, c := cat.EnsureLabel("A"), cat.EnsureLabel("B"), cat.EnsureLabel("C")
	id, other := cat.EnsureKey("id"), cat.EnsureKey("other")
	tx := s.Begin()
	mk := func(labels []catalog.LabelID, key catalog.KeyID, v vector.Value) uint32 {
		n, err := tx.CreateNode(labels, []catalog.KeyID{key}, []vector.Value{v})
		if err != nil {
			t.Fatal(err)
		}
		return uint32(n)
	}
	a1 := mk([]catalog.LabelID{a}, id, int64(1))
	a2 := mk([]catalog.LabelID{a}, id, int64(2))
	ab1 := mk([]catalog.LabelID{a, b}, id, int64(1))
	b1 := mk([]catalog.LabelID{b}, id, int64(1))
	b2 := mk([]catalog.LabelID{b}, id, int64(2))
	c1 := mk([]catalog.LabelID{c}, id, int64(1))
	c0 := mk([]catalog.LabelID{c}, other, int64(1))
	u1 := mk(nil, id, int64(1))
	u0 := mk(nil, other, int64(1))
	for _, l := range []string{"A", "B"} {
		if err := tx.CreateIndex(catalog.Index{Name: l + "_id", Type: catalog.BTree, Label: l, Keys: []string{"id"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// c0 and u0 lack the key: never in the residual.
	_, _ = c0, u0
	cols := []plan.Column{{Name: "m", Type: vector.Node}}
	seek := func(label, index string, v vector.Value) *plan.IndexSeek {
		return &plan.IndexSeek{Var: "m", Labels: []string{label}, Index: index, Type: "BTREE", Props: []string{"id"},
			Eq: []plan.Expr{&plan.Const{Val: v}}, Cols: cols}
	}
	one := int64(1)
	date := temporal.Date{Days: 1}
	for _, tc := range []struct {
		name string
		u    *plan.IndexUnion
		want []uint32
	}{
		{"both indexes", &plan.IndexUnion{Var: "m", Key: "id", Cols: cols,
			Seeks: []*plan.IndexSeek{seek("A", "A_id", one), seek("B", "B_id", one)}},
			[]uint32{a1, ab1, b1, c1, u1}},
		{"A's index gone", &plan.IndexUnion{Var: "m", Key: "id", Cols: cols,
			Seeks: []*plan.IndexSeek{seek("A", "gone", one), seek("B", "B_id", one)}},
			[]uint32{a1, a2, ab1, b1, c1, u1}},
		{"a value no index compares", &plan.IndexUnion{Var: "m", Key: "id", Cols: cols,
			Seeks: []*plan.IndexSeek{seek("A", "A_id", date), seek("B", "B_id", date)}},
			[]uint32{a1, a2, ab1, b1, b2, c1, u1}},
		{"A|C", &plan.IndexUnion{Var: "m", Key: "id", Cols: cols, Any: []string{"A", "C"},
			Seeks: []*plan.IndexSeek{seek("A", "A_id", one)}},
			[]uint32{a1, ab1, c1}},
		{"A|B, both answered", &plan.IndexUnion{Var: "m", Key: "id", Cols: cols, Any: []string{"A", "B"},
			Seeks: []*plan.IndexSeek{seek("A", "A_id", int64(2)), seek("B", "B_id", int64(2))}},
			[]uint32{a2, b2}},
	} {
		ctx := &Context{Env: expr.Env{Ctx: context.Background(), Tx: s.Begin(), Catalog: cat}}
		ctx.Profile = NewProfile()
		op, err := Build(ctx, tc.u)
		if err != nil {
			t.Fatal(err)
		}
		built := ctx.Mem.Used()
		var got []uint32
		for {
			bt, err := op.Next()
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
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
		// The union's bitmap is charged to the statement's budget: a
		// roaring bitmap of n ids in one container holds at least 2n bytes.
		if used := ctx.Mem.Used() - built; used < int64(2*len(tc.want)) {
			t.Errorf("%s: %d bytes charged for a union of %d nodes", tc.name, used, len(tc.want))
		}
		// PROFILE names each seek that covered nothing.
		fell := ctx.Profile.entry(tc.u).Fallbacks
		if want := tc.name == "A's index gone" || tc.name == "a value no index compares"; want != (len(fell) > 0) {
			t.Errorf("%s: fallbacks %v", tc.name, fell)
		}
	}
}
