package plan

import "math"

// LabelScan produces one row per live node its label expression holds
// for, (n:A|B), (n:!A), (n:%), from the label bitmaps: a union, an
// intersection or a difference of them per operator of the expression
// (the live nodes for a negation, the union of every label for %), with
// no test of a node at a time. A plain conjunction is a NodeScan.
type LabelScan struct {
	Var  string
	Expr *LabelExpr
	Cols []Column
}

func (o *LabelScan) Columns() []Column        { return o.Cols }
func (o *LabelScan) Children() []Operator     { return nil }
func (*LabelScan) SetChild(i int, _ Operator) { noChild(i) }

func (o *LabelScan) Describe() Description {
	return Description{Name: "LabelScan", Args: colName(o.Cols[0]) + ":" + o.Expr.String(), Label: o.Expr.String()}
}

func (o *LabelScan) estimated(k *coster, in estimate, kids []estimate) estimate {
	r := k.labelExprRows(o.Expr)
	return estimate{rows: r, cost: r}
}

// labelExprRows estimates the nodes a label expression holds for from the
// label counts, taking the labels as independent: & multiplies fractions,
// | adds them less their overlap, ! takes the rest, and % is the nodes
// with any label (at most the sum of the counts).
func (k *coster) labelExprRows(e *LabelExpr) float64 {
	n := k.nodes()
	var frac func(*LabelExpr) float64
	frac = func(e *LabelExpr) float64 {
		switch e.Kind {
		case LabelName:
			return math.Min(float64(k.st.LabelNodes[e.Name])/n, 1)
		case LabelAny:
			sum := 0.0
			for _, c := range k.st.LabelNodes {
				sum += float64(c)
			}
			return math.Min(sum/n, 1)
		case LabelNot:
			return 1 - frac(e.Args[0])
		case LabelAnd:
			f := 1.0
			for _, a := range e.Args {
				f *= frac(a)
			}
			return f
		}
		f := 0.0
		for _, a := range e.Args {
			g := frac(a)
			f += g - f*g
		}
		return f
	}
	return float64(k.st.Nodes) * frac(e)
}
