package opt

import (
	"math"

	"github.com/quiverdb/quiver/engine/plan"
)

// selectIndexUnions runs after selectIndexes: a scan without labels whose
// variable a Filter constrains by predicates that indexes serve on some
// labels becomes an IndexUnion of one seek per such label (the best index
// of each, as choose picks for a labelled scan) and a residual read of
// the nodes no seek covers that hold the predicates' property. A WHERE
// that requires one of some labels (`m:Post|Comment`, `m:Post OR
// m:Comment`) narrows the seeks to those labels and the residual to
// their nodes; without it, every label's index counts and the residual
// includes unlabelled nodes. A label expression, in such a WHERE or as a
// LabelScan's, narrows them to the labels one of which every node it
// holds for carries (index_union_labels.go).
//
// With a disjunction the union is chosen whenever one seek serves: the
// scan reads every node, the residual at most the disjunction's labels.
// Without labels the scan is the alternative, and its kernels (a range
// test over a dense column view, a count from it) cost a fraction of a
// residual node's filtering, so the union is chosen only when the
// indexes hold all but at most an eighth of the nodes holding the
// property (IndexInfo.Holders against the seeks' entries): `{id: $x}`
// with every message label indexed, not `{creationYear: 2006}` with
// only Post's (at M: 0.19 ms scanned and counted from the view, 14 ms
// through the union, 550k Comment nodes in its residual). WITHOUT INDEX
// keeps the scan; USING INDEX names one label, so the union does not
// apply (and the hint fails as it does on any scan it cannot serve).
func selectIndexUnions(p *plan.Plan, indexes []plan.IndexInfo) error {
	if len(indexes) == 0 {
		return nil
	}
	sts := standIns(p)
	s := newSelector(p, indexes)
	s.walk(p.Root)
	for _, c := range s.order {
		v := c.scan.Var
		if len(c.scan.Labels) > 0 || s.hints.NoIndex[v] || s.hints.Index[v] != nil {
			continue
		}
		var any []string
		if e := s.labelOf[c.scan]; e != nil {
			any, _ = s.cover(c, e)
		}
		if u := s.union(c, any); u != nil {
			c.replace(u)
		}
	}
	restoreLabelScans(p, sts)
	return nil
}

// union plans the seeks of scan c's predicates, one per indexed label
// (among any, when the WHERE names labels), or returns nil when no index
// serves them.
func (s *selector) union(c *scanCands, any []string) *plan.IndexUnion {
	u := &plan.IndexUnion{Var: c.scan.Var, Any: any, Cols: c.scan.Cols}
	seen := map[string]bool{}
	for i := range s.indexes {
		label := s.indexes[i].Label
		if seen[label] || (len(any) > 0 && !plan.HasLabel(any, label)) {
			continue
		}
		seen[label] = true
		one := &scanCands{scan: &plan.NodeScan{Var: c.scan.Var, Labels: []string{label}, Cols: c.scan.Cols}, preds: c.preds}
		var best *plan.IndexSeek
		bestRows := math.Inf(1)
		for j := i; j < len(s.indexes); j++ {
			if ix := &s.indexes[j]; ix.Label == label {
				if seek, rows := planSeek(one, ix); seek != nil && rows < bestRows {
					best, bestRows = seek, rows
				}
			}
		}
		if best != nil {
			u.Seeks = append(u.Seeks, best)
		}
	}
	if len(u.Seeks) == 0 {
		return nil
	}
	// Every predicate a seek answers is false or null on a node without
	// the property, so the residual needs only the nodes holding it.
	u.Key = u.Seeks[0].Props[0]
	if len(any) == 0 && s.uncovered(u) > s.holders(u.Key)/residualShare {
		return nil
	}
	return u
}

// residualShare: a union without labels is planned when at most
// 1/residualShare of the nodes holding its key are outside its seeks'
// indexes.
const residualShare = 8

// holders is the number of nodes holding key, as the indexes on it
// count them (0 when none is on it first).
func (s *selector) holders(key string) int64 {
	for _, ix := range s.indexes {
		if ix.Props[0] == key {
			return ix.Holders
		}
	}
	return 0
}

// uncovered estimates the nodes holding u's key that no seek's index
// holds: the holders less the seeks' entries (an overestimate where an
// index holds nodes by another property, or nodes carry two labels).
func (s *selector) uncovered(u *plan.IndexUnion) int64 {
	n := s.holders(u.Key)
	for _, seek := range u.Seeks {
		for _, ix := range s.indexes {
			if ix.Name == seek.Index && ix.Props[0] == u.Key {
				n -= ix.Entries
			}
		}
	}
	return max(n, 0)
}

// labelTest records conjunct c of filter f when it tests the labels of a
// scanned node without labels: m:A, m:A|B, m:A&!B, or an OR of such
// tests on the same node (index_union_labels.go reads which labels it
// requires one of).
func (s *selector) labelTest(f *plan.Filter, c plan.Expr) {
	col, e, ok := labelExprOf(c)
	if !ok {
		return
	}
	scan, _ := origin(f.Input, col, func(plan.Operator) {})
	if scan == nil || len(scan.Labels) > 0 {
		return
	}
	// Every filter between here and the scan holds: tests found on the
	// way down are joined by &.
	if prev := s.labelOf[scan]; prev != nil {
		e = &plan.LabelExpr{Kind: plan.LabelAnd, Args: []*plan.LabelExpr{prev, e}}
	}
	s.labelOf[scan] = e
}
