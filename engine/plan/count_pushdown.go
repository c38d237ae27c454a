package plan

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/vector"
)

// CountExpand counts the rows of a chain of one or two expansions from a
// node scan without producing them: `MATCH (a:L)-[:T]->(b)-[:U]->(c)
// RETURN count(*)` is a sum over the start nodes of neighbour counts read
// from the CSR (degrees, or neighbours carrying the far end's labels).
// Its output is one row with the count in column Count, or with Grouped
// one row per start node with a nonzero count: the node, then its count.
// The Aggregate above sums the counts (rules.go, RuleCountExpand).
type CountExpand struct {
	Var    string // the start node
	Labels []string
	Hops   []CountHop
	// Unique subtracts the pairs of a two-hop chain that use the same
	// relationship twice (relationship uniqueness within one MATCH).
	Unique  bool
	Grouped bool
	Cols    []Column
}

// CountHop is one expansion of a CountExpand.
type CountHop struct {
	Types    []string // empty: any type
	Dir      Direction
	ToVar    string
	ToLabels []string
}

func (o *CountExpand) Columns() []Column    { return o.Cols }
func (o *CountExpand) Children() []Operator { return nil }

// Pattern renders the counted chain: (a:L)-[:T]->(b)-[:U]->(c).
func (o *CountExpand) Pattern() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "(%s%s)", o.Var, labelText(o.Labels))
	for _, h := range o.Hops {
		types := ""
		if len(h.Types) > 0 {
			types = ":" + strings.Join(h.Types, "|")
		}
		left, right := "-", "->"
		switch h.Dir {
		case In:
			left, right = "<-", "-"
		case Both:
			right = "-"
		}
		fmt.Fprintf(&sb, "%s[%s]%s(%s%s)", left, types, right, h.ToVar, labelText(h.ToLabels))
	}
	return anonymous.Replace(sb.String())
}

func (o *CountExpand) Describe() Description {
	args := o.Pattern()
	if o.Grouped {
		args += " per " + o.Var
	}
	return Description{Name: "CountExpand", Args: args, Label: labelList(o.Labels), Pattern: o.Pattern()}
}

// countPushdown replaces the input of every Aggregate that only counts
// the rows of a node scan followed by one or two plain expansions with a
// CountExpand, and its count(*) with the sum of the counts. It applies
// when nothing observes the rows themselves: no filter, no relationship
// or far-end variable read, no DISTINCT, grouping keys (if any) only the
// start node or its properties. The Aggregate keeps its output columns.
func countPushdown(op Operator) {
	if a, ok := op.(*Aggregate); ok {
		if ce := countable(a); ce != nil {
			a.Input = ce
			cnt := len(ce.Cols) - 1
			a.Aggs = []AggCall{{Func: AggSum, Arg: &ColRef{Idx: cnt, Name: ce.Cols[cnt].Name, T: vector.Int64}}}
		}
	}
	for _, c := range op.Children() {
		countPushdown(c)
	}
}

// countable returns the CountExpand that can feed a, or nil.
func countable(a *Aggregate) *CountExpand {
	if len(a.Aggs) != 1 || a.Aggs[0].Func != AggCount || a.Aggs[0].Arg != nil || a.Aggs[0].Distinct {
		return nil
	}
	for _, k := range a.Keys {
		if !startKey(k) {
			return nil
		}
	}
	var hops []*Expand
	op := a.Input
	for {
		e, ok := op.(*Expand)
		if !ok {
			break
		}
		hops = append([]*Expand{e}, hops...)
		op = e.Input
	}
	scan, ok := op.(*NodeScan)
	if !ok || len(hops) == 0 || len(hops) > 2 {
		return nil
	}
	ce := &CountExpand{Var: colName(scan.Cols[0]), Labels: scan.Labels, Grouped: len(a.Keys) > 0}
	for i, e := range hops {
		// The first hop starts at the scanned node (column 0), the second
		// at the first's far end (column 2, after its relationship).
		if e.From != 2*i || e.Into >= 0 {
			return nil
		}
		switch {
		case len(e.Distinct) == 0:
		case i == 1 && len(e.Distinct) == 1 && e.Distinct[0] == 1:
			ce.Unique = true
		default:
			return nil
		}
		to := colName(e.Cols[len(e.Input.Columns())+1])
		ce.Hops = append(ce.Hops, CountHop{Types: e.Types, Dir: e.Dir, ToVar: to, ToLabels: e.ToLabels})
	}
	if ce.Grouped {
		ce.Cols = append(ce.Cols, scan.Cols[0])
	}
	ce.Cols = append(ce.Cols, Column{Name: "#count", Type: vector.Int64, Hidden: true})
	return ce
}

// startKey reports whether a grouping key reads only the start node
// (column 0): the node itself or one of its properties. Such a key has
// one value per start node, so grouping the per-node counts by it gives
// the groups of the expanded rows.
func startKey(k Expr) bool {
	switch x := k.(type) {
	case *ColRef:
		return x.Idx == 0
	case *Property:
		return startKey(x.Of)
	}
	return false
}
