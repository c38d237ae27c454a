package exec

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// TestOrderedSeekWithoutItsIndex: an ordered seek whose index is gone
// (dropped, or made again as HASH, after planning) still yields its
// label's nodes in key order, since the plan has no Sort above it; one
// with its index reads the same order from it.
func TestOrderedSeekWithoutItsIndex(t *testing.T) {
	s := storage.New()
	cat := s.Catalog()
	l := cat.EnsureLabel("N")
	k := cat.EnsureKey("v")
	tx := s.Begin()
	vals := []vector.Value{int64(5), 2.5, int64(-1), "b", int64(9), "a", 0.0}
	for _, v := range vals {
		if _, err := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k}, []vector.Value{v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.CreateIndex(catalog.Index{Name: "ix", Type: catalog.BTree, Label: "N", Keys: []string{"v"}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.CreateIndex(catalog.Index{Name: "hx", Type: catalog.Hash, Label: "N", Keys: []string{"v"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []vector.Value{int64(-1), 0.0, 2.5, int64(5), int64(9)}
	for _, name := range []string{"ix", "gone", "hx"} {
		c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: s.Begin(), Catalog: cat}}
		seek := &plan.IndexSeek{Var: "n", Labels: []string{"N"}, Index: name, Type: "BTREE", Props: []string{"v"},
			Lo: &plan.Const{Val: int64(-5), T: vector.Int64}, Ordered: true,
			Cols: []plan.Column{{Name: "n", Type: vector.Node}}}
		op, err := Build(c, seek)
		if err != nil {
			t.Fatal(err)
		}
		var got []vector.Value
		for {
			b, err := op.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			for i := 0; i < b.Rows(); i++ {
				c.Tx.NodeProps(b.Cols[0].IDs[b.Row(i)], func(_ catalog.KeyID, v vector.Value) {
					if _, isStr := v.(string); !isStr || name == "ix" {
						got = append(got, v)
					}
				})
			}
		}
		// With the index the seek reads numbers only; without it the
		// Filter above would drop the strings, which sort after numbers.
		if len(got) != len(want) {
			t.Fatalf("%s: got %v, want %v", name, got, want)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: got %v, want %v", name, got, want)
			}
		}
	}
}
