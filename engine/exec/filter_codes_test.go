package exec

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// runFilter runs Filter pred over a scan of st's (a:P) with the
// code-filter rule on or off, and returns the sorted rows and, when on,
// the codeFilter.
func runFilter(t *testing.T, st *storage.Store, pred plan.Expr, codes bool) ([]string, *codeFilter) {
	t.Helper()
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}}
	var off []string
	if !codes {
		off = []string{plan.RuleCodeFilter}
	}
	op, err := Build(c, chosen(&plan.Filter{Input: scanP(), Pred: pred}, off...))
	if err != nil {
		t.Fatal(err)
	}
	cf, _ := op.(*codeFilter)
	if codes != (cf != nil) {
		t.Fatalf("code filter built: %v, want %v", cf != nil, codes)
	}
	rows := drain(t, op)
	sort.Strings(rows)
	return rows, cf
}

// The code filter keeps exactly the rows the general predicate keeps:
// with sealed chunks coded on dictionaries, nodes without the property,
// a literal on either side, a string no node has, values written after
// sealing (new strings outside the dictionaries) and a value of another
// type. The first cases also check that the rows without a value went
// without a code.
func TestCodeFilterMatchesGeneral(t *testing.T) {
	st := parallelStore(t, 3*storage.GroupSize+500) // name "n<i%11>" on even nodes
	kname := st.Catalog().EnsureKey("name")
	check := func(stage string, pred plan.Expr, wantRows int, uncoded func(int64) bool) {
		t.Helper()
		want, _ := runFilter(t, st, pred, false)
		got, cf := runFilter(t, st, pred, true)
		if !slices.Equal(got, want) || len(got) != wantRows {
			t.Fatalf("%s: %d rows on codes, %d general, want %d", stage, len(got), len(want), wantRows)
		}
		if !uncoded(cf.uncoded) {
			t.Fatalf("%s: %d rows read without a code", stage, cf.uncoded)
		}
	}
	n := 3*storage.GroupSize + 500
	evens := (n + 1) / 2
	n3 := 0 // even i with i % 11 == 3
	for i := 0; i < n; i += 2 {
		if i%11 == 3 {
			n3++
		}
	}
	eq := func(l, r plan.Expr) plan.Expr { return cmpOp(plan.OpEq, l, r) }
	// Odd nodes have no name: no code, read alone (and never equal).
	check("sealed", eq(prop(0, "name"), konst("n3")), n3, func(u int64) bool { return u >= int64(n-evens) })
	check("literal first", eq(konst("n3"), prop(0, "name")), n3, func(u int64) bool { return u > 0 })
	check("absent string", eq(prop(0, "name"), konst("zz")), 0, func(u int64) bool { return u > 0 })
	tx := st.Begin()
	// Node 1 had no name, node 2 had "n2"; "fresh" is in no dictionary.
	for _, id := range []uint64{1, 2, storage.GroupSize + 3} {
		if err := tx.SetNodeProps(id, []catalog.KeyID{kname}, []vector.Value{"fresh"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.SetNodeProps(14, []catalog.KeyID{kname}, []vector.Value{int64(3)}); err != nil { // was "n3"
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Written chunks are coded again, or read alone: either way the rows.
	anyCount := func(int64) bool { return true }
	check("fresh strings", eq(prop(0, "name"), konst("fresh")), 3, anyCount)
	check("another type", eq(prop(0, "name"), konst("n3")), n3-1, anyCount)
}
