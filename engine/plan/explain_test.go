package plan

import (
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// futureOp stands for an operator the cost model has no case for.
type futureOp struct {
	in   Operator
	cols []Column
}

func (o *futureOp) Columns() []Column          { return o.cols }
func (o *futureOp) Children() []Operator       { return []Operator{o.in} }
func (o *futureOp) SetChild(_ int, c Operator) { o.in = c }
func (o *futureOp) Describe() Description {
	return Description{Name: "FutureOp", Args: "n", Pattern: "(n)-->()"}
}

// An operator the cost model does not know keeps its input's cardinality
// and costs one per row; EXPLAIN shows what it says of itself, and the
// whole-plan figures add up.
func TestExplainUnknownOperator(t *testing.T) {
	scan := &NodeScan{Var: "n", Labels: []string{"A", "B"}, Cols: []Column{{Name: "n", Type: vector.Node}}}
	root := &futureOp{in: scan, cols: []Column{{Name: "n", Type: vector.Node}, {Name: "hidden", Hidden: true}}}
	// 100 nodes, 50 A, 20 B: 100 × 0.5 × 0.2 = 10 rows.
	st := GraphStats{Nodes: 100, LabelNodes: map[string]int64{"A": 50, "B": 20}}
	ex := Explain(&Plan{Root: root, Returns: true}, st)
	d := ex.Root
	if d.Operator != "FutureOp" || d.Details != "n" || d.Pattern != "(n)-->()" || len(d.Columns) != 1 || d.Columns[0] != "n" {
		t.Errorf("root = %+v", d)
	}
	if s := d.Children[0]; s.Operator != "NodeScan" || s.Details != "n:A:B" || s.Label != "A:B" || s.EstimatedRows != 10 || s.EstimatedCost != 10 {
		t.Errorf("scan = %+v", s)
	}
	if d.EstimatedRows != 10 || d.EstimatedCost != 10 || ex.TotalCost != 20 || ex.Rows != 10 {
		t.Errorf("estimates: root %v/%v, total %v, rows %v", d.EstimatedRows, d.EstimatedCost, ex.TotalCost, ex.Rows)
	}
	if got := Format(root); got != "FutureOp n\n  NodeScan n:A:B" {
		t.Errorf("Format = %q", got)
	}
}

func TestAnonymousVariablesLeavePatterns(t *testing.T) {
	for in, want := range map[string]string{
		"(a)-[r:KNOWS*1..3]->(b)": "(a)-[r:KNOWS*1..3]->(b)",
		"(a)-[_:KNOWS*1..3]->(_)": "(a)-[:KNOWS*1..3]->()",
		"(a)-[_*]-(_:L)":          "(a)-[*]-(:L)",
		"":                        "",
	} {
		if got := anonymous.Replace(in); got != want {
			t.Errorf("anonymous.Replace(%q) = %q, want %q", in, got, want)
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

// 100 nodes, 10 of them A, 200 KNOWS: degree 2. One to three hops from
// each of 10 A nodes: 10 × (2 + 4 + 8) = 140 chains, costing the 10
// lists opened plus the 140 chains followed.
func TestExplainVariableLength(t *testing.T) {
	st := GraphStats{Nodes: 100, LabelNodes: map[string]int64{"A": 10}, TypeRels: map[string]int64{"KNOWS": 200}}
	scan := &NodeScan{Var: "a", Labels: []string{"A"}, Cols: []Column{{Name: "a", Type: vector.Node}}}
	op := &VarLengthExpand{Input: scan, Types: []string{"KNOWS"}, Min: 1, Max: 3, Into: -1, Pattern: "(a)-[_:KNOWS*1..3]->(b)",
		Cols: []Column{{Name: "a", Type: vector.Node}, {Name: "b", Type: vector.Node}}}
	ex := Explain(&Plan{Root: op, Returns: true}, st)
	if d := ex.Root; d.Operator != "VariableLengthExpand" || d.Pattern != "(a)-[:KNOWS*1..3]->(b)" || d.EstimatedRows != 140 || d.EstimatedCost != 150 {
		t.Errorf("var-length = %+v", d)
	}
	// Without an upper bound the model sums 1..11 hops: 2^12 - 2 per node.
	op.Max = -1
	if d := Explain(&Plan{Root: op}, st).Root; d.EstimatedRows != 10*4094 {
		t.Errorf("unbounded: rows %v, want %v", d.EstimatedRows, 10*4094)
	}
	// Into a bound node: divided by the node count.
	op.Max, op.Into = 3, 0
	if d := Explain(&Plan{Root: op}, st).Root; d.EstimatedRows != 1.4 {
		t.Errorf("into: rows %v, want 1.4", d.EstimatedRows)
	}
}
