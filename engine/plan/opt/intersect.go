package opt

import "github.com/quiverdb/quiver/engine/plan"

// fuseIntersects replaces each Expand that closes a cycle (Into: its far
// end is a node bound before the expansion below it) and that expansion
// with an ExpandIntersect: MATCH (a)-->(b)-->(c)-->(a) then reads, per
// (a, b) row, b's list and a's reverse list once and merges them, where
// the plain plan emitted every c of b and looked for c→a in each. The
// closing hop must bind nothing new (no far-end labels to test on the
// bound node) and close on a node bound before the first hop; written
// from that node into c ((a)-->(c)), it is taken the other way round
// (mirrored).
func fuseIntersects(op plan.Operator) plan.Operator {
	for _, c := range op.Children() {
		if n := fuseIntersects(c); n != c {
			plan.ReplaceChild(op, c, n)
		}
	}
	cl, ok := op.(*plan.Expand)
	if !ok || cl.Into < 0 || len(cl.ToLabels) > 0 {
		return op
	}
	first, ok := cl.Input.(*plan.Expand)
	if !ok || first.Into >= 0 {
		return op
	}
	width := len(first.Input.Columns())
	if cl.From < width && cl.Into == width+1 {
		cl = mirrored(cl, first.Input.Columns()[cl.From].Name)
	}
	if cl.From != width+1 || cl.Into >= width || len(cl.Cols) != width+3 {
		return op
	}
	for _, d := range first.Distinct {
		if d >= width {
			return op
		}
	}
	for _, d := range cl.Distinct {
		if d > width { // the input's columns or first's relationship
			return op
		}
	}
	return &plan.ExpandIntersect{First: first, Close: cl}
}

// mirrored is the closing hop cl written from the node it closes on:
// (a)-[r]->(c), from a bound before the first hop into its new node c,
// is (c)<-[r]-(a), from c into a, with the same relationship and the
// same columns (MATCH (a)-->(b)-->(c), (a)-->(c) closes that way).
// intoName is a's column name.
func mirrored(cl *plan.Expand, intoName string) *plan.Expand {
	m := *cl
	m.From, m.Into, m.ToVar = cl.Into, cl.From, intoName
	switch cl.Dir {
	case plan.Out:
		m.Dir = plan.In
	case plan.In:
		m.Dir = plan.Out
	}
	return &m
}
