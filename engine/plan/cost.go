package plan

import (
	"math"
)

// GraphStats are the counts the cost model reads, taken by the engine from the
// snapshot a query would run on. Plan keeps no storage import: the engine
// fills this struct.
type GraphStats struct {
	Nodes int64
	Rels  int64
	// LabelNodes counts live nodes per label name; a missing label has 0.
	LabelNodes map[string]int64
	// TypeRels counts live relationships per type name.
	TypeRels map[string]int64
	// Indexes are the snapshot's indexes with their statistics, by name.
	Indexes map[string]IndexInfo
}

// Selectivities the model assumes where it has no statistics. They are the
// textbook defaults (System R): an equality keeps a tenth of its input, any
// other predicate half.
const (
	selEquality = 0.1
	selDefault  = 0.5
	// unwindDefault is the list length assumed for an UNWIND whose list is
	// not a literal or a constant range.
	unwindDefault = 10
)

// estimate is one operator's cardinality and own cost. Cost is counted in
// rows touched: a scanned node, a neighbour entry read, a row filtered,
// hashed or copied each cost one; a sort costs n·log2(n).
type estimate struct {
	rows, cost float64
}

// coster estimates operators bottom-up.
type coster struct {
	st GraphStats
	// argRows is the cardinality of each Argument: the rows of the input
	// of the Optional that feeds it.
	argRows map[*Argument]float64
}

func (k *coster) nodes() float64 { return math.Max(float64(k.st.Nodes), 1) }

// labelRows estimates the nodes carrying every label: the rarest label's
// count times the fraction of nodes carrying each other one
// (independence).
func (k *coster) labelRows(labels []string) float64 {
	if len(labels) == 0 {
		return float64(k.st.Nodes)
	}
	rows := float64(k.st.Nodes)
	for _, l := range labels {
		rows *= float64(k.st.LabelNodes[l]) / k.nodes()
	}
	return rows
}

// degree is the average number of relationships of the given types (any
// type when empty) per node in direction d.
func (k *coster) degree(types []string, d Direction) float64 {
	rels := float64(k.st.Rels)
	if len(types) > 0 {
		rels = 0
		for _, t := range types {
			rels += float64(k.st.TypeRels[t])
		}
	}
	deg := rels / k.nodes()
	if d == Both {
		deg *= 2
	}
	return deg
}

// selectivity is the fraction of rows a predicate is assumed to keep.
func selectivity(e Expr) float64 {
	switch x := e.(type) {
	case *Binary:
		switch x.Op {
		case OpEq:
			return selEquality
		case OpAnd:
			return selectivity(x.L) * selectivity(x.R)
		case OpOr:
			l, r := selectivity(x.L), selectivity(x.R)
			return l + r - l*r
		}
	case *Not:
		return 1 - selectivity(x.X)
	}
	return selDefault
}

// constCount is the value of a constant integer expression (a literal),
// if it is one.
func constCount(e Expr) (float64, bool) {
	if c, ok := e.(*Const); ok {
		if n, ok := c.Val.(int64); ok {
			return float64(max(n, 0)), true
		}
	}
	return 0, false
}

// listLength estimates the number of elements of an UNWIND list: exact for
// list literals and range() over constants.
func listLength(e Expr) float64 {
	switch x := e.(type) {
	case *List:
		return float64(len(x.Elems))
	case *Const:
		if l, ok := x.Val.([]any); ok {
			return float64(len(l))
		}
	case *Call:
		if x.Name != "range" {
			break
		}
		var a [3]float64
		a[2] = 1
		for i, arg := range x.Args {
			c, ok := arg.(*Const)
			if !ok {
				return unwindDefault
			}
			n, ok := c.Val.(int64)
			if !ok {
				return unwindDefault
			}
			a[i] = float64(n)
		}
		if a[2] == 0 {
			return 0
		}
		return math.Max(math.Floor((a[1]-a[0])/a[2])+1, 0)
	}
	return unwindDefault
}

// estimator is an operator the cost model knows: estimated gives its
// cardinality and own cost from its first input's estimate in and the
// estimates of all its inputs, kids.
type estimator interface {
	estimated(k *coster, in estimate, kids []estimate) estimate
}

// opEstimate estimates o given its children's estimates.
func (k *coster) opEstimate(o Operator, kids []estimate) estimate {
	in := estimate{rows: 1}
	if len(kids) > 0 {
		in = kids[0]
	}
	if e, ok := o.(estimator); ok {
		return e.estimated(k, in, kids)
	}
	// Any other operator keeps its input's cardinality and costs one per
	// row.
	return estimate{rows: in.rows, cost: in.rows}
}

// Each operator's estimate. An operator without one (the writes, a
// procedure call) keeps its input's cardinality, at one per row.

func (o *Unit) estimated(k *coster, in estimate, kids []estimate) estimate {
	return estimate{rows: 1}
}

func (o *NodeScan) estimated(k *coster, in estimate, kids []estimate) estimate {
	r := k.labelRows(o.Labels)
	return estimate{rows: r, cost: r}
}

func (o *IndexSeek) estimated(k *coster, in estimate, kids []estimate) estimate {
	ix, ok := k.st.Indexes[o.Index]
	if !ok {
		r := k.labelRows(o.Labels) * selEquality
		return estimate{rows: r, cost: r}
	}
	// A seek costs a search (log2 of the entries) plus the rows.
	r := SeekRows(o, &ix)
	return estimate{rows: r, cost: r + math.Log2(math.Max(float64(ix.Entries), 2))}
}

func (o *IndexJoin) estimated(k *coster, in estimate, kids []estimate) estimate {
	// One seek per left row.
	per := k.labelRows(o.Labels) * selEquality
	if ix, ok := k.st.Indexes[o.Index]; ok {
		per = SeekRows(&IndexSeek{Eq: o.Keys, Props: o.Props}, &ix)
	}
	r := in.rows * per
	return estimate{rows: r, cost: in.rows + r}
}

func (o *HashJoin) estimated(k *coster, in estimate, kids []estimate) estimate {
	// Build the right side, probe with the left; the keys' equality
	// keeps a tenth of the pairs unless statistics say otherwise.
	r := kids[0].rows * kids[1].rows * selEquality
	return estimate{rows: r, cost: kids[0].rows + kids[1].rows + r}
}

func (o *Expand) estimated(k *coster, in estimate, kids []estimate) estimate {
	deg := k.degree(o.Types, o.Dir)
	r := in.rows * deg
	if o.Into >= 0 {
		r /= k.nodes()
	} else {
		for _, l := range o.ToLabels {
			r *= float64(k.st.LabelNodes[l]) / k.nodes()
		}
	}
	return estimate{rows: r, cost: in.rows + in.rows*deg}
}

func (o *ExpandIntersect) estimated(k *coster, in estimate, kids []estimate) estimate {
	// The rows of the two expansions, at the cost of reading both
	// lists once per input row.
	first := k.opEstimate(o.First, []estimate{in})
	closed := k.opEstimate(o.Close, []estimate{first})
	cost := in.rows + in.rows*(k.degree(o.First.Types, o.First.Dir)+k.degree(o.Close.Types, o.Close.Dir))
	return estimate{rows: closed.rows, cost: cost}
}

func (o *LabelSets) estimated(k *coster, in estimate, kids []estimate) estimate {
	// Bitmap operations per label and set; a row per label set, at
	// most one per label.
	r := k.labelRows(o.Labels)
	return estimate{rows: min(r, float64(len(k.st.LabelNodes)+1)), cost: float64(len(k.st.LabelNodes) + 1)}
}

func (o *CountExpand) estimated(k *coster, in estimate, kids []estimate) estimate {
	// One pass over the start nodes and their lists, no rows out.
	r := k.labelRows(o.Labels)
	cost := r
	for _, h := range o.Hops {
		cost += r * k.degree(h.Types, h.Dir)
	}
	if !o.Grouped {
		r = 1
	}
	return estimate{rows: r, cost: cost}
}

func (o *Filter) estimated(k *coster, in estimate, kids []estimate) estimate {
	if seek, ok := o.Input.(*IndexSeek); ok {
		return estimate{rows: in.rows * residualSelectivity(o.Pred, seek), cost: in.rows}
	}
	if u, ok := o.Input.(*IndexUnion); ok && len(u.Seeks) > 0 {
		return estimate{rows: in.rows * residualSelectivity(o.Pred, u.Seeks[0]), cost: in.rows}
	}
	return estimate{rows: in.rows * selectivity(o.Pred), cost: in.rows}
}

func (o *Project) estimated(k *coster, in estimate, kids []estimate) estimate {
	return estimate{rows: in.rows, cost: in.rows}
}

func (o *Aggregate) estimated(k *coster, in estimate, kids []estimate) estimate {
	if len(o.Keys) == 0 {
		return estimate{rows: 1, cost: in.rows}
	}
	// Groups grow sublinearly with the input: n^(k/(k+1)) for k keys.
	kk := float64(len(o.Keys))
	return estimate{rows: math.Min(in.rows, math.Pow(in.rows, kk/(kk+1))), cost: in.rows}
}

func (o *Distinct) estimated(k *coster, in estimate, kids []estimate) estimate {
	return estimate{rows: in.rows, cost: in.rows}
}

func (o *Sort) estimated(k *coster, in estimate, kids []estimate) estimate {
	r := in.rows
	if n, ok := constCount(o.Limit); ok {
		s, _ := constCount(o.Skip)
		r = math.Min(r, n+s)
	}
	return estimate{rows: r, cost: in.rows * math.Max(math.Log2(math.Max(r, 2)), 1)}
}

func (o *Skip) estimated(k *coster, in estimate, kids []estimate) estimate {
	if n, ok := constCount(o.Count); ok {
		return estimate{rows: math.Max(in.rows-n, 0), cost: in.rows}
	}
	return estimate{rows: in.rows, cost: in.rows}
}

func (o *Limit) estimated(k *coster, in estimate, kids []estimate) estimate {
	if n, ok := constCount(o.Count); ok {
		r := math.Min(in.rows, n)
		return estimate{rows: r, cost: r}
	}
	return estimate{rows: in.rows, cost: in.rows}
}

func (o *Unwind) estimated(k *coster, in estimate, kids []estimate) estimate {
	r := in.rows * listLength(o.Expr)
	return estimate{rows: r, cost: r}
}

func (o *Argument) estimated(k *coster, in estimate, kids []estimate) estimate {
	r, ok := k.argRows[o]
	if !ok {
		r = 1
	}
	return estimate{rows: r}
}

func (o *Optional) estimated(k *coster, in estimate, kids []estimate) estimate {
	return estimate{rows: math.Max(in.rows, kids[1].rows), cost: in.rows}
}

func (o *CrossProduct) estimated(k *coster, in estimate, kids []estimate) estimate {
	r := kids[0].rows * kids[1].rows
	return estimate{rows: r, cost: r + kids[1].rows}
}

func (o *Create) estimated(k *coster, in estimate, kids []estimate) estimate {
	return estimate{rows: in.rows, cost: in.rows * float64(len(o.Nodes)+len(o.Rels))}
}

func (o *VarLengthExpand) estimated(k *coster, in estimate, kids []estimate) estimate {
	return k.chains(in, o.Types, o.Dir, o.Min, o.Max, o.ToLabels, o.Into)
}

func (o *ShortestPath) estimated(k *coster, in estimate, kids []estimate) estimate {
	// At most one chain per input row (the model assumes one), and
	// the search may visit every node.
	return estimate{rows: in.rows, cost: in.rows * k.nodes()}
}

func (o *Union) estimated(k *coster, in estimate, kids []estimate) estimate {
	rows := 0.0
	for _, k := range kids {
		rows += k.rows
	}
	return estimate{rows: rows, cost: rows}
}

// maxHopsAssumed bounds the hops the model sums over for a
// variable-length pattern without an upper bound.
const maxHopsAssumed = 10

// chains estimates a variable-length expansion: in × Σ degree^h for h in
// minHops..maxHops (a negative maxHops is unbounded), times the fraction
// of nodes carrying each far-end label, or divided by the node count into
// a bound far end.
func (k *coster) chains(in estimate, types []string, dir Direction, minHops, maxHops int, toLabels []string, into int) estimate {
	if maxHops < 0 || maxHops > minHops+maxHopsAssumed {
		maxHops = minHops + maxHopsAssumed
	}
	deg := k.degree(types, dir)
	n := 0.0
	for h := minHops; h <= maxHops; h++ {
		n += math.Pow(deg, float64(h))
	}
	rows := in.rows * n
	for _, l := range toLabels {
		rows *= float64(k.st.LabelNodes[l]) / k.nodes()
	}
	if into >= 0 {
		rows /= k.nodes() // the far end is a given node
	}
	return estimate{rows: rows, cost: in.rows + in.rows*n}
}
