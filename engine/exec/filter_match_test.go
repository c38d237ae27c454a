package exec

import (
	"context"
	"slices"
	"sort"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// runMatch runs Filter pred over a scan of st's (a:P) with the
// code-match rule on or off and returns the sorted rows; on, it checks
// that the code match was built.
func runMatch(t *testing.T, st *storage.Store, pred plan.Expr, on bool) []string {
	t.Helper()
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog()}}
	var off []string
	if !on {
		off = []string{plan.RuleCodeMatch}
	}
	op, err := Build(c, chosen(&plan.Filter{Input: scanP(), Pred: pred}, off...))
	if err != nil {
		t.Fatal(err)
	}
	if _, built := op.(*codeMatch); built != on {
		t.Fatalf("code match built: %v, want %v", built, on)
	}
	rows := drain(t, op)
	sort.Strings(rows)
	return rows
}

// The code match keeps exactly the rows the general predicate keeps, for
// every string test and IN, alone and as a conjunct (first or not) of an
// AND whose other conjuncts decide the rows it keeps; over sealed chunks
// coded on dictionaries, nodes without the property, then values written
// after sealing (strings in no dictionary) and a value of another type.
func TestCodeMatchMatchesGeneral(t *testing.T) {
	n := 3*storage.GroupSize + 500
	st := parallelStore(t, n) // name "n<i%11>" on even nodes, v = i%7
	kname := st.Catalog().EnsureKey("name")
	str := func(op string, want vector.Value) plan.Expr {
		return &plan.Call{Name: op, Args: []plan.Expr{prop(0, "name"), konst(want)}}
	}
	in := &plan.Call{Name: functions.OpIn, Args: []plan.Expr{prop(0, "name"),
		&plan.Const{Val: []vector.Value{"n1", "n5", "zz", "fresh"}, T: vector.Any}}}
	vLow := cmpOp(plan.OpLt, prop(0, "v"), konst(int64(3)))
	and := func(l, r plan.Expr) plan.Expr { return cmpOp(plan.OpAnd, l, r) }
	preds := map[string]plan.Expr{
		"starts":        str(functions.OpStartsWith, "n1"),
		"ends":          str(functions.OpEndsWith, "0"),
		"contains":      str(functions.OpContains, "es"),
		"in":            in,
		"starts and":    and(str(functions.OpStartsWith, "n"), vLow),
		"and contains":  and(vLow, and(str(functions.OpContains, "1"), cmpOp(plan.OpGt, prop(0, "v"), konst(int64(0))))),
		"equal and":     and(cmpOp(plan.OpEq, prop(0, "name"), konst("n4")), vLow),
		"starts empty":  str(functions.OpStartsWith, ""),
		"absent string": str(functions.OpContains, "zz"),
	}
	check := func(stage string) {
		t.Helper()
		for name, pred := range preds {
			want := runMatch(t, st, pred, false)
			got := runMatch(t, st, pred, true)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, %s: %d rows on codes, %d general", stage, name, len(got), len(want))
			}
			if stage == "sealed" && name == "starts empty" && len(got) != (n+1)/2 {
				t.Fatalf("%s: STARTS WITH '' kept %d rows, want every named node (%d)", stage, len(got), (n+1)/2)
			}
		}
	}
	check("sealed")
	tx := st.Begin()
	for _, id := range []uint64{1, 2, storage.GroupSize + 3} {
		if err := tx.SetNodeProps(id, []catalog.KeyID{kname}, []vector.Value{"fresh"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.SetNodeProps(14, []catalog.KeyID{kname}, []vector.Value{int64(3)}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	check("written")
}

// A parameter that is not a string leaves the filter to the general
// predicate, and PROFILE's fallback says why.
func TestCodeMatchParamNotString(t *testing.T) {
	st := parallelStore(t, 100)
	tx := st.Begin()
	defer tx.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: tx, Catalog: st.Catalog(), Params: map[string]vector.Value{"p": int64(1)}}}
	pred := &plan.Call{Name: functions.OpStartsWith, Args: []plan.Expr{prop(0, "name"), &plan.Param{Name: "p", T: vector.Any}}}
	op, err := Build(c, chosen(&plan.Filter{Input: scanP(), Pred: pred}))
	if err != nil {
		t.Fatal(err)
	}
	if _, built := op.(*codeMatch); built {
		t.Fatal("a code match for an INTEGER parameter")
	}
	if rows := drain(t, op); len(rows) != 0 {
		t.Fatalf("STARTS WITH 1 kept %d rows", len(rows))
	}
}
