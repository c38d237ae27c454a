package expr

import (
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// TestTypeKernelsMatchRowPath checks the type predicate's batch kernel
// and CAST's typed loops against functions.ValueType.Matches and
// functions.Cast a row at a time, over the random columns of
// TestKernelsMatchRowPath (nulls, selections, mixed values).
func TestTypeKernelsMatchRowPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 5))
	var exprs []plan.Expr
	cols := []plan.Expr{dx, dy, df, ds, db, dm, dd, dn, lit(nil), lit(int64(3))}
	for _, ty := range []string{"INTEGER", "INTEGER NOT NULL", "INT8", "INT32 | STRING", "FLOAT", "FLOAT32", "STRING", "BOOLEAN NOT NULL",
		"DATE", "ANY", "ANY NOT NULL", "NOTHING", "NULL", "LIST<ANY>", "LIST<INTEGER NOT NULL>", "MAP | NODE"} {
		for _, c := range cols {
			exprs = append(exprs, call(functions.OpIsType, vector.Bool, c, lit(ty)))
		}
	}
	for _, ty := range []string{"INTEGER", "INT16", "INTEGER NOT NULL", "FLOAT", "FLOAT32", "STRING", "BOOLEAN", "DATE", "ANY"} {
		vt, ok := functions.ParseValueType(ty)
		if !ok {
			t.Fatalf("%s does not compile", ty)
		}
		rt, _ := functions.CastResult(vt)
		for _, c := range cols {
			exprs = append(exprs, call(functions.OpCast, rt, c, lit(ty)))
		}
	}
	for _, e := range exprs {
		ev, err := Compile(&Env{}, e)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		for round := range 12 {
			b := randomBatch(rng, round)
			out, err := ev.Eval(b)
			checkAgainstRows(t, e, b, out, err)
		}
	}
}
