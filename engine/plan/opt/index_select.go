package opt

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
)

// selectIndexes rewrites p to read nodes through indexes: a NodeScan whose
// variable a Filter above it constrains by equality, IN, a range or
// STARTS WITH on indexed properties (inline property maps are equality
// filters too) becomes an IndexSeek; the Filter stays. USING INDEX forces
// an index, WITHOUT INDEX keeps label scans.
func selectIndexes(p *plan.Plan, indexes []plan.IndexInfo) error {
	s := newSelector(p, indexes)
	s.walk(p.Root)
	for _, c := range s.order {
		if err := s.choose(c); err != nil {
			return err
		}
	}
	return nil
}

// selectIndexJoins runs after selectIndexes: a scan that no constant seek
// serves, whose keys come from the rows of a cartesian product's other
// side, becomes an IndexJoin (index_join.go). Then every USING INDEX hint
// must have been honoured, by a seek or a join: one that could not serve
// its MATCH is an error.
func selectIndexJoins(p *plan.Plan, indexes []plan.IndexInfo) error {
	s := newSelector(p, indexes)
	s.walk(p.Root)
	s.used = seekVars(p.Root, map[string]bool{})
	for _, j := range s.joinOrder {
		if !s.used[j.scan.Var] {
			s.chooseJoin(j)
		}
	}
	for v, hint := range s.hints.Index {
		if !s.used[v] {
			return errs.Semantic("cannot use index hint %s:%s(%s): %s is not a node scanned by a MATCH with a predicate on those properties",
				v, hint.Label, joinProps(hint.Props), v).At(hint.Line, hint.Column)
		}
	}
	return nil
}

func newSelector(p *plan.Plan, indexes []plan.IndexInfo) *selector {
	h := p.Hints
	if h == nil {
		h = &plan.Hints{}
	}
	return &selector{indexes: indexes, hints: h, cands: map[*plan.NodeScan]*scanCands{},
		used: map[string]bool{}, joins: map[*plan.NodeScan]*joinCand{}, labelOf: map[*plan.NodeScan]*plan.LabelExpr{}}
}

// seekVars adds to vars the variables an IndexSeek serves, in the plan and
// in the sub-plans of its pattern subqueries (where walk looks too).
func seekVars(op plan.Operator, vars map[string]bool) map[string]bool {
	sub := func(e plan.Expr) {
		if ps, ok := e.(*plan.PatternSubquery); ok {
			seekVars(ps.Plan, vars)
		}
	}
	switch o := op.(type) {
	case *plan.IndexSeek:
		vars[o.Var] = true
	case *plan.IndexUnion:
		vars[o.Var] = true
	case *plan.Filter:
		plan.Walk(o.Pred, sub)
	case *plan.Project:
		for _, e := range o.Exprs {
			plan.Walk(e, sub)
		}
	}
	for _, c := range op.Children() {
		seekVars(c, vars)
	}
	return vars
}

func joinProps(ps []string) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += ", "
		}
		s += p
	}
	return s
}

// scanCands collects the predicates found for one scan and how to put an
// IndexSeek in its place.
type scanCands struct {
	scan    *plan.NodeScan
	replace func(plan.Operator)
	preds   []plan.IndexPred
}

type selector struct {
	indexes []plan.IndexInfo
	hints   *plan.Hints
	cands   map[*plan.NodeScan]*scanCands
	order   []*scanCands
	used    map[string]bool
	// joins are scans whose keys come from the rows they are joined with
	// (index_join.go), considered when no constant seek serves them.
	joins     map[*plan.NodeScan]*joinCand
	joinOrder []*joinCand
	// labelOf holds the label expression a WHERE (or a LabelScan's
	// stand-in) requires of a scan without labels (index_union.go).
	labelOf map[*plan.NodeScan]*plan.LabelExpr
}

// walk finds Filters and the scans their conjuncts constrain, in the
// plan and in the sub-plans of pattern subqueries (EXISTS, pattern
// predicates and comprehensions) of filters and projections.
func (s *selector) walk(op plan.Operator) {
	sub := func(e plan.Expr) {
		if ps, ok := e.(*plan.PatternSubquery); ok {
			s.walk(ps.Plan)
		}
	}
	switch o := op.(type) {
	case *plan.Filter:
		plan.Walk(o.Pred, sub)
	case *plan.Project:
		for _, e := range o.Exprs {
			plan.Walk(e, sub)
		}
	}
	if f, ok := op.(*plan.Filter); ok {
		for _, c := range plan.Conjuncts(f.Pred, nil) {
			col, pr, ok := plan.IndexablePred(c)
			if !ok {
				s.labelTest(f, c)
				s.correlated(f, c)
				continue
			}
			scan, replace := origin(f.Input, col, func(n plan.Operator) { f.Input = n })
			if scan == nil {
				continue
			}
			sc := s.cands[scan]
			if sc == nil {
				sc = &scanCands{scan: scan, replace: replace}
				s.cands[scan] = sc
				s.order = append(s.order, sc)
			}
			sc.preds = append(sc.preds, pr)
		}
	}
	for _, c := range op.Children() {
		s.walk(c)
	}
}

// correlated records conjunct c of filter f when it compares a scanned
// node's property with values of the rows the scan is joined with.
func (s *selector) correlated(f *plan.Filter, c plan.Expr) {
	col, pr, maxCol, ok := correlatedPred(c)
	if !ok {
		return
	}
	cp, replace, scan := correlatedOrigin(f.Input, col, maxCol, func(n plan.Operator) { f.Input = n })
	if scan == nil {
		return
	}
	j := s.joins[scan]
	if j == nil {
		j = &joinCand{cp: cp, replace: replace, scan: scan}
		s.joins[scan] = j
		s.joinOrder = append(s.joinOrder, j)
	}
	j.preds = append(j.preds, pr)
}

// origin follows column col of op down through operators that keep their
// input's columns in place (Filter, Expand, the left and right of a
// CrossProduct) to the NodeScan that produces it, and returns a function
// that puts another operator in the scan's place.
func origin(op plan.Operator, col int, replace func(plan.Operator)) (*plan.NodeScan, func(plan.Operator)) {
	switch o := op.(type) {
	case *plan.NodeScan:
		if col == 0 {
			return o, replace
		}
	case *plan.Filter:
		return origin(o.Input, col, func(n plan.Operator) { o.Input = n })
	case *plan.Expand:
		if col < len(o.Input.Columns()) {
			return origin(o.Input, col, func(n plan.Operator) { o.Input = n })
		}
	case *plan.CrossProduct:
		if nl := len(o.Left.Columns()); col < nl {
			return origin(o.Left, col, func(n plan.Operator) { o.Left = n })
		} else {
			return origin(o.Right, col-nl, func(n plan.Operator) { o.Right = n })
		}
	}
	return nil, nil
}

// choose picks the best index for one scan, if any, and puts the seek in
// place.
func (s *selector) choose(c *scanCands) error {
	v := c.scan.Var
	if s.hints.NoIndex[v] && s.hints.Index[v] == nil {
		return nil
	}
	hint := s.hints.Index[v]
	var best *plan.IndexSeek
	bestRows := math.Inf(1)
	for i := range s.indexes {
		ix := &s.indexes[i]
		if !plan.HasLabel(c.scan.Labels, ix.Label) {
			continue
		}
		if hint != nil && (hint.Label != ix.Label || joinProps(hint.Props) != joinProps(ix.Props)) {
			continue
		}
		seek, rows := planSeek(c, ix)
		if seek != nil && rows < bestRows {
			best, bestRows = seek, rows
		}
	}
	if best == nil {
		return nil
	}
	best.Hinted = hint != nil
	s.used[v] = true
	c.replace(best)
	return nil
}

// planSeek fits the scan's predicates to index ix: equalities on a prefix
// of its properties, then IN, a range or STARTS WITH on the next one (the
// last three on a BTREE only, except IN on a whole key). It returns nil
// when the index serves none of them, else the seek and its estimated
// rows.
func planSeek(c *scanCands, ix *plan.IndexInfo) (*plan.IndexSeek, float64) {
	seek := &plan.IndexSeek{Var: c.scan.Var, Labels: c.scan.Labels, Index: ix.Name, Type: ix.Type,
		Props: ix.Props, Cols: c.scan.Cols}
	preds := predsFor(c.preds, ix)
	find := func(prop string, op plan.BinOp) plan.Expr {
		for _, p := range preds {
			if p.Prop == prop && p.Op == op {
				return p.Value
			}
		}
		return nil
	}
	// A node lacking one of the index's properties has no entry, so the
	// index serves only predicates that constrain every one of them
	// (each recognised predicate is false or null on a missing value).
	for _, prop := range ix.Props {
		constrained := false
		for _, p := range preds {
			constrained = constrained || p.Prop == prop
		}
		if !constrained {
			return nil, 0
		}
	}
	for _, prop := range ix.Props {
		e := find(prop, plan.OpEq)
		if e == nil {
			break
		}
		seek.Eq = append(seek.Eq, e)
	}
	k, n := len(seek.Eq), len(ix.Props)
	if k == n {
		return seek, plan.SeekRows(seek, ix)
	}
	next := ix.Props[k]
	if in := find(next, plan.PredIn); in != nil && (ix.Type == "BTREE" || k+1 == n) {
		seek.In = in
		return seek, plan.SeekRows(seek, ix)
	}
	if ix.Type != "BTREE" {
		return nil, 0
	}
	if p := find(next, plan.PredStartsWith); p != nil {
		seek.Prefix = p
		return seek, plan.SeekRows(seek, ix)
	}
	for _, op := range []plan.BinOp{plan.OpGt, plan.OpGe} {
		if e := find(next, op); e != nil {
			seek.Lo, seek.LoIncl = e, op == plan.OpGe
			break
		}
	}
	for _, op := range []plan.BinOp{plan.OpLt, plan.OpLe} {
		if e := find(next, op); e != nil {
			seek.Hi, seek.HiIncl = e, op == plan.OpLe
			break
		}
	}
	if k == 0 && seek.Lo == nil && seek.Hi == nil {
		return nil, 0
	}
	return seek, plan.SeekRows(seek, ix)
}

// predsFor returns the predicates index ix may serve: an equality on an
// encrypted field only on an index of a label that seals the property
// deterministically, seeking the sealed value (plan/fle.go).
func predsFor(preds []plan.IndexPred, ix *plan.IndexInfo) []plan.IndexPred {
	sealed := false
	for _, p := range preds {
		sealed = sealed || p.Sealed != nil
	}
	if !sealed {
		return preds
	}
	out := make([]plan.IndexPred, 0, len(preds))
	for _, p := range preds {
		if p.Sealed != nil {
			v := p.Sealed.For(ix.Label)
			if v == nil {
				continue
			}
			p.Value = v
		}
		out = append(out, p)
	}
	return out
}
