package plan

import (
	"testing"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/vector"
)

// TestTypeCallString: EXPLAIN shows a type predicate and a CAST as a
// query writes them, and any other call as before.
func TestTypeCallString(t *testing.T) {
	x := &Property{Of: &ColRef{Name: "n", T: vector.Node}, Key: "x"}
	for _, c := range []struct {
		e    Expr
		want string
	}{
		{&Call{Name: functions.OpIsType, Args: []Expr{x, &Const{Val: "INTEGER NOT NULL", T: vector.String}}, T: vector.Bool}, "(n.x IS :: INTEGER NOT NULL)"},
		{&Not{X: &Call{Name: functions.OpIsType, Args: []Expr{x, &Const{Val: "LIST<INTEGER | STRING>", T: vector.String}}, T: vector.Bool}}, "(NOT (n.x IS :: LIST<INTEGER | STRING>))"},
		{&Call{Name: functions.OpCast, Args: []Expr{x, &Const{Val: "FLOAT", T: vector.String}}, T: vector.Float64}, "CAST(n.x AS FLOAT)"},
		{&Call{Name: "tostring", Args: []Expr{x}, T: vector.String}, "tostring(n.x)"},
		{&Call{Name: functions.OpCast, Args: []Expr{x, x}}, "#cast(n.x, n.x)"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%s, want %s", got, c.want)
		}
	}
}
