package plan

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/gql"
)

// IndexInfo is what index selection knows of one index of the snapshot a
// query will read.
type IndexInfo struct {
	Name  string
	Type  string // BTREE or HASH
	Label string
	Props []string
	// Entries and Distinct are index statistics: entries and distinct keys.
	Entries, Distinct int64
}

// selectIndexes rewrites p to read nodes through indexes: a NodeScan whose
// variable a Filter above it constrains by equality, IN, a range or
// STARTS WITH on indexed properties (inline property maps are equality
// filters too) becomes an IndexSeek; the Filter stays. The hints of the
// statement's MATCH clauses are honoured: USING INDEX forces an index (an
// error if it cannot serve the MATCH), WITHOUT INDEX keeps label scans,
// USING JOIN ON a.x = b.y joins the two pattern parts by hashing.
func selectIndexes(p *Plan, indexes []IndexInfo) error {
	h := p.hints
	if h == nil {
		h = collectHints(nil)
	}
	s := &selector{indexes: indexes, hints: h, cands: map[*NodeScan]*scanCands{},
		used: map[string]bool{}, joins: map[*NodeScan]*joinCand{}}
	s.walk(p.Root)
	for _, c := range s.order {
		if err := s.choose(c); err != nil {
			return err
		}
	}
	for _, j := range s.joinOrder {
		if !s.used[j.scan.Var] {
			s.chooseJoin(j)
		}
	}
	for v, hint := range h.index {
		if !s.used[v] {
			return errs.Semantic("cannot use index hint %s:%s(%s): %s is not a node scanned by a MATCH with a predicate on those properties",
				v, hint.Label, joinProps(hint.Props), v).At(hint.Pos.Line, hint.Pos.Column)
		}
	}
	p.Root = orderBySeeks(p.Root)
	for _, j := range h.joins {
		root, err := applyJoin(p.Root, j)
		if err != nil {
			return err
		}
		p.Root = root
	}
	return nil
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

// hints are the planner hints of a statement, by variable.
type hints struct {
	index   map[string]*gql.Hint
	noIndex map[string]bool
	joins   []*gql.Hint
}

func collectHints(stmt *gql.Statement) *hints {
	h := &hints{index: map[string]*gql.Hint{}, noIndex: map[string]bool{}}
	if stmt == nil || stmt.Query == nil {
		return h
	}
	for _, part := range stmt.Query.Parts {
		for _, c := range part.Clauses {
			m, ok := c.(*gql.Match)
			if !ok {
				continue
			}
			for _, hint := range m.Hints {
				switch hint.Kind {
				case gql.HintIndex:
					h.index[hint.Var] = hint
				case gql.HintJoin:
					h.joins = append(h.joins, hint)
				case gql.HintNoIndex:
					for _, pp := range m.Pattern.Parts {
						for _, n := range pp.Nodes {
							if n.Var != "" {
								h.noIndex[n.Var] = true
							}
						}
					}
				}
			}
		}
	}
	return h
}

// pred is one indexable conjunct on a scanned node's property.
type pred struct {
	prop  string
	op    BinOp // OpEq, OpLt, OpLe, OpGt, OpGe; OpAnd marks IN, OpOr STARTS WITH
	value Expr
}

const (
	predIn         = OpAnd
	predStartsWith = OpOr
)

// scanCands collects the predicates found for one scan and how to put an
// IndexSeek in its place.
type scanCands struct {
	scan    *NodeScan
	replace func(Operator)
	preds   []pred
}

type selector struct {
	indexes []IndexInfo
	hints   *hints
	cands   map[*NodeScan]*scanCands
	order   []*scanCands
	used    map[string]bool
	// joins are scans whose keys come from the rows they are joined with
	// (index_join.go), considered when no constant seek serves them.
	joins     map[*NodeScan]*joinCand
	joinOrder []*joinCand
}

// walk finds Filters and the scans their conjuncts constrain, in the
// plan and in the sub-plans of pattern subqueries (EXISTS, pattern
// predicates and comprehensions) of filters and projections.
func (s *selector) walk(op Operator) {
	sub := func(e Expr) {
		if ps, ok := e.(*PatternSubquery); ok {
			s.walk(ps.Plan)
		}
	}
	switch o := op.(type) {
	case *Filter:
		Walk(o.Pred, sub)
	case *Project:
		for _, e := range o.Exprs {
			Walk(e, sub)
		}
	}
	if f, ok := op.(*Filter); ok {
		for _, c := range conjuncts(f.Pred, nil) {
			col, pr, ok := indexablePred(c)
			if !ok {
				s.correlated(f, c)
				continue
			}
			scan, replace := origin(f.Input, col, func(n Operator) { f.Input = n })
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
func (s *selector) correlated(f *Filter, c Expr) {
	col, pr, maxCol, ok := correlatedPred(c)
	if !ok {
		return
	}
	cp, replace, scan := correlatedOrigin(f.Input, col, maxCol, func(n Operator) { f.Input = n })
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

func conjuncts(e Expr, out []Expr) []Expr {
	if b, ok := e.(*Binary); ok && b.Op == OpAnd {
		return conjuncts(b.R, conjuncts(b.L, out))
	}
	return append(out, e)
}

// indexablePred recognises col.prop OP value (either way round), col.prop
// IN list and col.prop STARTS WITH s, where value is a constant or a
// parameter.
func indexablePred(e Expr) (int, pred, bool) {
	switch x := e.(type) {
	case *Binary:
		op := x.Op
		if op != OpEq && op != OpLt && op != OpLe && op != OpGt && op != OpGe {
			return 0, pred{}, false
		}
		if col, prop, ok := propOfCol(x.L); ok && isValue(x.R) {
			return col, pred{prop, op, x.R}, true
		}
		if col, prop, ok := propOfCol(x.R); ok && isValue(x.L) {
			return col, pred{prop, flip(op), x.L}, true
		}
	case *Call:
		if len(x.Args) != 2 || (x.Name != functions.OpIn && x.Name != functions.OpStartsWith) {
			return 0, pred{}, false
		}
		if col, prop, ok := propOfCol(x.Args[0]); ok && isValue(x.Args[1]) {
			op := predIn
			if x.Name == functions.OpStartsWith {
				op = predStartsWith
			}
			return col, pred{prop, op, x.Args[1]}, true
		}
	}
	return 0, pred{}, false
}

func propOfCol(e Expr) (int, string, bool) {
	p, ok := e.(*Property)
	if !ok {
		return 0, "", false
	}
	c, ok := p.Of.(*ColRef)
	if !ok {
		return 0, "", false
	}
	return c.Idx, p.Key, true
}

// isValue: a constant, a parameter, or a list of them.
func isValue(e Expr) bool {
	switch x := e.(type) {
	case *Const, *Param:
		return true
	case *List:
		for _, el := range x.Elems {
			if !isValue(el) {
				return false
			}
		}
		return true
	}
	return false
}

func flip(op BinOp) BinOp {
	switch op {
	case OpLt:
		return OpGt
	case OpLe:
		return OpGe
	case OpGt:
		return OpLt
	case OpGe:
		return OpLe
	}
	return op
}

// origin follows column col of op down through operators that keep their
// input's columns in place (Filter, Expand, the left and right of a
// CrossProduct) to the NodeScan that produces it, and returns a function
// that puts another operator in the scan's place.
func origin(op Operator, col int, replace func(Operator)) (*NodeScan, func(Operator)) {
	switch o := op.(type) {
	case *NodeScan:
		if col == 0 {
			return o, replace
		}
	case *Filter:
		return origin(o.Input, col, func(n Operator) { o.Input = n })
	case *Expand:
		if col < len(o.Input.Columns()) {
			return origin(o.Input, col, func(n Operator) { o.Input = n })
		}
	case *CrossProduct:
		if nl := len(o.Left.Columns()); col < nl {
			return origin(o.Left, col, func(n Operator) { o.Left = n })
		} else {
			return origin(o.Right, col-nl, func(n Operator) { o.Right = n })
		}
	}
	return nil, nil
}

// choose picks the best index for one scan, if any, and puts the seek in
// place.
func (s *selector) choose(c *scanCands) error {
	v := c.scan.Var
	if s.hints.noIndex[v] && s.hints.index[v] == nil {
		return nil
	}
	hint := s.hints.index[v]
	var best *IndexSeek
	bestRows := math.Inf(1)
	for i := range s.indexes {
		ix := &s.indexes[i]
		if !hasLabel(c.scan.Labels, ix.Label) {
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

func hasLabel(labels []string, l string) bool {
	for _, x := range labels {
		if x == l {
			return true
		}
	}
	return false
}

// planSeek fits the scan's predicates to index ix: equalities on a prefix
// of its properties, then IN, a range or STARTS WITH on the next one (the
// last three on a BTREE only, except IN on a whole key). It returns nil
// when the index serves none of them, else the seek and its estimated
// rows.
func planSeek(c *scanCands, ix *IndexInfo) (*IndexSeek, float64) {
	seek := &IndexSeek{Var: c.scan.Var, Labels: c.scan.Labels, Index: ix.Name, Type: ix.Type,
		Props: ix.Props, Cols: c.scan.Cols}
	find := func(prop string, op BinOp) Expr {
		for _, p := range c.preds {
			if p.prop == prop && p.op == op {
				return p.value
			}
		}
		return nil
	}
	// A node lacking one of the index's properties has no entry, so the
	// index serves only predicates that constrain every one of them
	// (each recognised predicate is false or null on a missing value).
	for _, prop := range ix.Props {
		constrained := false
		for _, p := range c.preds {
			constrained = constrained || p.prop == prop
		}
		if !constrained {
			return nil, 0
		}
	}
	for _, prop := range ix.Props {
		e := find(prop, OpEq)
		if e == nil {
			break
		}
		seek.Eq = append(seek.Eq, e)
	}
	k, n := len(seek.Eq), len(ix.Props)
	if k == n {
		return seek, SeekRows(seek, ix)
	}
	next := ix.Props[k]
	if in := find(next, predIn); in != nil && (ix.Type == "BTREE" || k+1 == n) {
		seek.In = in
		return seek, SeekRows(seek, ix)
	}
	if ix.Type != "BTREE" {
		return nil, 0
	}
	if p := find(next, predStartsWith); p != nil {
		seek.Prefix = p
		return seek, SeekRows(seek, ix)
	}
	for _, op := range []BinOp{OpGt, OpGe} {
		if e := find(next, op); e != nil {
			seek.Lo, seek.LoIncl = e, op == OpGe
			break
		}
	}
	for _, op := range []BinOp{OpLt, OpLe} {
		if e := find(next, op); e != nil {
			seek.Hi, seek.HiIncl = e, op == OpLe
			break
		}
	}
	if k == 0 && seek.Lo == nil && seek.Hi == nil {
		return nil, 0
	}
	return seek, SeekRows(seek, ix)
}

// SeekRows estimates the rows a seek yields from the index statistics:
// entries / distinct^(k/n) per key prefix of k of the n properties (the
// independence assumption spread over the key), times the list length
// for IN, and the default selectivities for ranges and STARTS WITH.
func SeekRows(seek *IndexSeek, ix *IndexInfo) float64 {
	entries := math.Max(float64(ix.Entries), 1)
	distinct := math.Max(float64(ix.Distinct), 1)
	n := float64(len(ix.Props))
	rows := entries / math.Pow(distinct, float64(len(seek.Eq))/n)
	switch {
	case seek.In != nil:
		rows = rows / math.Pow(distinct, 1/n) * listLength(seek.In)
	case seek.Prefix != nil:
		rows *= selDefault * selEquality
	case seek.Lo != nil && seek.Hi != nil:
		rows *= selDefault * selDefault
	case seek.Lo != nil || seek.Hi != nil:
		rows *= selDefault
	}
	return math.Max(rows, 1)
}

// residualSelectivity is the selectivity of a Filter right above a seek:
// the conjuncts on the seek's properties are what the seek's estimate
// already counts, so only the others reduce the rows further.
func residualSelectivity(pred Expr, seek *IndexSeek) float64 {
	sel := 1.0
	for _, c := range conjuncts(pred, nil) {
		if col, p, ok := indexablePred(c); ok && col == 0 && hasLabel(seek.Props, p.prop) {
			continue
		}
		sel *= selectivity(c)
	}
	return sel
}
