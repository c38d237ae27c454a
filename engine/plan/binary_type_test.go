package plan

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/vector"
)

// The binder notes each arithmetic and logical Binary's type as it
// builds it (Binary.T), and that type is the one Type works out from the operands: for arithmetic
// of INTEGERs, FLOATs and mixed, string concatenation, comparisons,
// logic, powers, parameters of unknown type, and every level of a chain
// near the depth limit.
func TestBinaryTypeNotedByBinder(t *testing.T) {
	for _, c := range []struct {
		expr string
		want vector.Type
	}{
		{"1 + 2", vector.Int64},
		{"1 + 2.5", vector.Float64},
		{"(1 + 2) * 3 - 4 % 2", vector.Int64},
		{"1.5 / 2 + 1", vector.Float64},
		{"'a' + 'b'", vector.String},
		{"1 < 2", vector.Bool},
		{"true AND (1 = 2 OR false)", vector.Bool},
		{"2 ^ 3", vector.Float64},
		{"$p + 1", vector.Any},
		{"1" + strings.Repeat(" + 1", 990), vector.Int64},
		{"1.0" + strings.Repeat(" * 2", 990), vector.Float64},
	} {
		st, err := gql.Parse("RETURN " + c.expr + " AS x")
		if err != nil {
			t.Fatalf("%.40s: %v", c.expr, err)
		}
		p, err := Bind(st, Env{})
		if err != nil {
			t.Fatalf("%.40s: %v", c.expr, err)
		}
		var root Expr
		for op := p.Root; op != nil && root == nil; {
			if pj, ok := op.(*Project); ok {
				root = pj.Exprs[0]
				break
			}
			kids := op.Children()
			if len(kids) == 0 {
				break
			}
			op = kids[0]
		}
		b, ok := root.(*Binary)
		if !ok {
			t.Fatalf("%.40s: bound to %T, want a Binary", c.expr, root)
		}
		if b.Type() != c.want {
			t.Errorf("%.40s: type %v, want %v", c.expr, b.Type(), c.want)
		}
		// Every level: noted, and what Type works out without the note.
		levels := 0
		for e := Expr(b); ; levels++ {
			b, ok := e.(*Binary)
			if !ok {
				break
			}
			worked := *b
			worked.T = vector.Null
			// A comparison (bound by the chain's binder) is BOOLEAN
			// whatever its operands: its type costs nothing to work out.
			noted := b.T != vector.Null || b.Op.IsComparison()
			if !noted || b.Type() != worked.Type() {
				t.Fatalf("%.40s: level %d noted %v, works out as %v", c.expr, levels, b.T, worked.Type())
			}
			e = b.L
		}
		if levels == 0 {
			t.Fatalf("%.40s: no Binary", c.expr)
		}
	}
}
