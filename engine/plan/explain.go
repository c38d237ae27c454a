package plan

import (
	"fmt"
	"strings"
)

// Described is one operator of an EXPLAIN plan: what the HTTP API shows as
// a node of the plan tree. Empty strings mean the field does not apply.
type Described struct {
	// Operator is the operator's name: NodeScan, Expand, Filter, … and,
	// for an operator this file does not know, its Go type name.
	Operator string
	// Columns are the operator's visible output columns.
	Columns []string
	// Details is the operator's arguments in the text form of Format,
	// followed by the physical strategies chosen for it in brackets
	// ("[far-set]", physical.go).
	Details string
	// Pattern is the relationship pattern an expansion follows, as
	// "(a)-[r:KNOWS]->(b)".
	Pattern string
	// Label, Filter and IndexUsed describe a scan: the labels it reads,
	// a predicate applied while scanning, the index it uses (an
	// IndexSeek's index name; empty for a label scan).
	Label     string
	Filter    string
	IndexUsed string
	// EstimatedRows is the operator's output cardinality; EstimatedCost
	// its own work, not its children's (see cost.go for the unit).
	EstimatedRows float64
	EstimatedCost float64
	Children      []*Described
}

// Explanation is a described plan with whole-plan estimates.
type Explanation struct {
	Root *Described
	// TotalCost sums EstimatedCost over every operator.
	TotalCost float64
	// Rows is the root's estimated cardinality.
	Rows float64
	// Rules are the optimizer rules and passes that changed the plan
	// (Plan.Fired).
	Rules []string
}

// Explain describes p's operator tree with estimates from st. It reads the
// plan only; nothing is executed.
func Explain(p *Plan, st GraphStats) *Explanation {
	k := &coster{st: st, argRows: map[*Argument]float64{}}
	ex := &Explanation{}
	ex.Root = k.describe(p.Root, &ex.TotalCost)
	ex.TotalCost = round2(ex.TotalCost) // a sum of rounded figures
	ex.Rows = ex.Root.EstimatedRows
	ex.Rules = append([]string{}, p.Fired...)
	return ex
}

func (k *coster) describe(op Operator, total *float64) *Described {
	desc := op.Describe()
	d := &Described{Operator: desc.Name}
	children := op.Children()
	var kids []estimate
	for i, c := range children {
		if opt, ok := op.(*Optional); ok && i == 1 {
			// The inner plan runs over each input batch: its Argument
			// has the input's cardinality.
			k.argRows[opt.Arg] = kids[0].rows
		}
		if cs, ok := op.(*CallSubquery); ok && i == 1 {
			k.argRows[cs.Arg] = kids[0].rows
		}
		cd := k.describe(c, total)
		d.Children = append(d.Children, cd)
		kids = append(kids, estimate{rows: cd.EstimatedRows, cost: cd.EstimatedCost})
	}
	est := k.opEstimate(op, kids)
	d.EstimatedRows, d.EstimatedCost = round2(est.rows), round2(est.cost)
	*total += d.EstimatedCost
	for _, c := range op.Columns() {
		if !c.Hidden {
			d.Columns = append(d.Columns, c.Name)
		}
	}
	if d.Columns == nil {
		d.Columns = []string{}
	}
	d.Details, d.Pattern, d.Label, d.Filter, d.IndexUsed = desc.Args, desc.Pattern, desc.Label, desc.Filter, desc.Index
	d.Details = strings.TrimSpace(d.Details + strategyText(op))
	return d
}

// expandPattern renders an Expand as a pattern: (a)-[r:T]->(b:L).
func expandPattern(o *Expand) string {
	in := o.Input.Columns()
	from := in[o.From].Name
	rel := ""
	if n := len(in); n < len(o.Cols) && !o.Cols[n].Hidden {
		rel = o.Cols[n].Name
	}
	to := ""
	if o.Into >= 0 {
		to = in[o.Into].Name
	} else if n := len(in) + 1; n < len(o.Cols) && !o.Cols[n].Hidden {
		to = o.Cols[n].Name
	}
	to += labelText(o.ToLabels)
	types := ""
	if len(o.Types) > 0 {
		types = ":" + strings.Join(o.Types, "|")
	}
	left, right := "-", "->"
	switch o.Dir {
	case In:
		left, right = "<-", "-"
	case Both:
		right = "-"
	}
	return fmt.Sprintf("(%s)%s[%s%s]%s(%s)", from, left, rel, types, right, to)
}

// round2 keeps estimates readable: two decimals are all a model this
// coarse can claim.
func round2(x float64) float64 {
	if x > 1e15 {
		return x
	}
	return float64(int64(x*100+0.5)) / 100
}
