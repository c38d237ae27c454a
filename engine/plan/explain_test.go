package plan

import (
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// futureOp stands for an operator this file's switch does not know.
type futureOp struct {
	in   Operator
	cols []Column
}

func (o *futureOp) Columns() []Column    { return o.cols }
func (o *futureOp) Children() []Operator { return []Operator{o.in} }

// An unknown operator is described by its type name, keeps its input's
// cardinality and costs one per row; the whole-plan figures add up.
func TestExplainUnknownOperator(t *testing.T) {
	scan := &NodeScan{Var: "n", Labels: []string{"A", "B"}, Cols: []Column{{Name: "n", Type: vector.Node}}}
	root := &futureOp{in: scan, cols: []Column{{Name: "n", Type: vector.Node}, {Name: "hidden", Hidden: true}}}
	// 100 nodes, 50 A, 20 B: 100 × 0.5 × 0.2 = 10 rows.
	st := Stats{Nodes: 100, LabelNodes: map[string]int64{"A": 50, "B": 20}}
	ex := Explain(&Plan{Root: root, Returns: true}, st)
	d := ex.Root
	if d.Operator != "futureOp" || d.Details != "" || d.Pattern != "" || len(d.Columns) != 1 || d.Columns[0] != "n" {
		t.Errorf("root = %+v", d)
	}
	if s := d.Children[0]; s.Operator != "NodeScan" || s.Label != "A:B" || s.EstimatedRows != 10 || s.EstimatedCost != 10 {
		t.Errorf("scan = %+v", s)
	}
	if d.EstimatedRows != 10 || d.EstimatedCost != 10 || ex.TotalCost != 20 || ex.Rows != 10 {
		t.Errorf("estimates: root %v/%v, total %v, rows %v", d.EstimatedRows, d.EstimatedCost, ex.TotalCost, ex.Rows)
	}
}

func TestPatternText(t *testing.T) {
	for in, want := range map[string]string{
		"(a)-[r:KNOWS*1..3]->(b)":     "(a)-[r:KNOWS*1..3]->(b)",
		"(a)-[_:KNOWS*1..3]->(_)":     "(a)-[:KNOWS*1..3]->()",
		"(a)-[_*]-(_:L)":              "(a)-[*]-(:L)",
		"shortest (a)-[:R*]-(b) as p": "(a)-[:R*]-(b)",
		"count(x)":                    "",
		"":                            "",
	} {
		if got := patternText(in); got != want {
			t.Errorf("patternText(%q) = %q, want %q", in, got, want)
		}
	}
}

// The estimates of the list lengths UNWIND sees.
func TestListLength(t *testing.T) {
	c := func(v int64) Expr { return &Const{Val: v, T: vector.Int64} }
	cases := []struct {
		e    Expr
		want float64
	}{
		{&Call{Name: "range", Args: []Expr{c(1), c(10)}}, 10},
		{&Call{Name: "range", Args: []Expr{c(0), c(10), c(3)}}, 4}, // 0 3 6 9
		{&Call{Name: "range", Args: []Expr{c(10), c(1)}}, 0},
		{&Call{Name: "range", Args: []Expr{c(10), c(1), c(-1)}}, 10},
		{&List{Elems: []Expr{c(1), c(2)}}, 2},
		{&Param{Name: "l"}, unwindDefault},
	}
	for _, tc := range cases {
		if got := listLength(tc.e); got != tc.want {
			t.Errorf("listLength(%s) = %v, want %v", tc.e, got, tc.want)
		}
	}
}
