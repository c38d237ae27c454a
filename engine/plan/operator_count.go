package plan

import (
	"fmt"
	"slices"
	"strings"
)

// CountExpand counts the rows of a chain of one or two expansions from a
// node scan without producing them: `MATCH (a:L)-[:T]->(b)-[:U]->(c)
// RETURN count(*)` is a sum over the start nodes of neighbour counts read
// from the CSR (degrees, or neighbours carrying the far end's labels).
// Its output is one row with the count in column Count, or with Grouped
// one row per start node with a nonzero count: the node, then its count;
// with Zeros too (an OPTIONAL MATCH's count of its pattern) one row per
// start node, a count of 0 included. The Aggregate above sums the counts
// (rules.go, RuleCountExpand).
type CountExpand struct {
	Var    string // the start node
	Labels []string
	Hops   []CountHop
	// Unique subtracts the pairs of a two-hop chain that use the same
	// relationship twice (relationship uniqueness within one MATCH).
	Unique  bool
	Grouped bool
	Zeros   bool
	// StartPred, when set, keeps only the start nodes it holds for; it
	// reads the start node as column 0 (RuleCountFilter).
	StartPred Expr
	Cols      []Column
}

// CountHop is one expansion of a CountExpand.
type CountHop struct {
	Types    []string // empty: any type
	Dir      Direction
	ToVar    string
	ToLabels []string
	// Pred, when set, keeps only the far ends it holds for; it reads the
	// far node as column 0 (RuleCountFilter).
	Pred Expr
}

// Filtered reports whether the count takes filters of its chain.
func (o *CountExpand) Filtered() bool {
	return o.StartPred != nil || slices.ContainsFunc(o.Hops, func(h CountHop) bool { return h.Pred != nil })
}

func (o *CountExpand) Columns() []Column        { return o.Cols }
func (o *CountExpand) Children() []Operator     { return nil }
func (*CountExpand) SetChild(i int, _ Operator) { noChild(i) }

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
	if o.Zeros {
		args += ", zeros kept"
	}
	var preds []string
	if o.StartPred != nil {
		preds = append(preds, o.StartPred.String())
	}
	for _, h := range o.Hops {
		if h.Pred != nil {
			preds = append(preds, h.Pred.String())
		}
	}
	if len(preds) > 0 {
		args += " where " + strings.Join(preds, ", ")
	}
	return Description{Name: "CountExpand", Args: args, Label: labelList(o.Labels), Pattern: o.Pattern()}
}
