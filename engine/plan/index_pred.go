package plan

import (
	"math"

	"github.com/quiverdb/quiver/engine/functions"
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
	// Holders is the number of nodes of any label, or none, holding the
	// first property (opt/index_union.go weighs the nodes no index
	// covers by it).
	Holders int64
}

// IndexPred is one indexable conjunct on a scanned node's property.
type IndexPred struct {
	Prop  string
	Op    BinOp // OpEq, OpLt, OpLe, OpGt, OpGe; PredIn marks IN, PredStartsWith STARTS WITH
	Value Expr
	// Sealed is set for an equality on an encrypted field (fle.go): only
	// the indexes of the labels it names serve it, with Sealed.For's value.
	Sealed *SealedSeek
}

const (
	PredIn         = OpAnd
	PredStartsWith = OpOr
)

func Conjuncts(e Expr, out []Expr) []Expr {
	if b, ok := e.(*Binary); ok && b.Op == OpAnd {
		return Conjuncts(b.R, Conjuncts(b.L, out))
	}
	return append(out, e)
}

// IndexablePred recognises col.prop OP value (either way round), col.prop
// IN list and col.prop STARTS WITH s, where value is a constant or a
// parameter.
func IndexablePred(e Expr) (int, IndexPred, bool) {
	switch x := e.(type) {
	case *Binary:
		op := x.Op
		if op != OpEq && op != OpLt && op != OpLe && op != OpGt && op != OpGe {
			return 0, IndexPred{}, false
		}
		if col, prop, ok := PropOfCol(x.L); ok && isValue(x.R) {
			return col, IndexPred{prop, op, x.R, nil}, true
		}
		if col, prop, ok := PropOfCol(x.R); ok && isValue(x.L) {
			return col, IndexPred{prop, flip(op), x.L, nil}, true
		}
		if col, ss, ok := sealedEquality(x); ok {
			return col, IndexPred{Prop: ss.Prop, Op: OpEq, Value: ss.Value, Sealed: ss}, true
		}
	case *Call:
		if len(x.Args) != 2 || (x.Name != functions.OpIn && x.Name != functions.OpStartsWith) {
			return 0, IndexPred{}, false
		}
		if col, prop, ok := PropOfCol(x.Args[0]); ok && isValue(x.Args[1]) {
			op := PredIn
			if x.Name == functions.OpStartsWith {
				op = PredStartsWith
			}
			return col, IndexPred{prop, op, x.Args[1], nil}, true
		}
	}
	return 0, IndexPred{}, false
}

// PropOfCol recognises a property of a column: the column and the key.
func PropOfCol(e Expr) (int, string, bool) {
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

func HasLabel(labels []string, l string) bool {
	for _, x := range labels {
		if x == l {
			return true
		}
	}
	return false
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
	for _, c := range Conjuncts(pred, nil) {
		if col, p, ok := IndexablePred(c); ok && col == 0 && HasLabel(seek.Props, p.Prop) {
			continue
		}
		sel *= selectivity(c)
	}
	return sel
}
