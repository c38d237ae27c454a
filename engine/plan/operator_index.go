package plan

import (
	"fmt"
	"strings"
)

// IndexSeek produces the nodes an index finds for a predicate on their
// properties, at the query's snapshot: it replaces a NodeScan whose
// variable a Filter above constrains (opt/index_select.go). The Filter stays
// above it, so the seek only has to return a superset of the matching
// nodes: the residual predicate keeps Cypher's exact semantics.
//
// The seek reads Props[:len(Eq)] by equality, then at most one of In
// (a list of values), a range Lo/Hi, or Prefix (STARTS WITH) on
// Props[len(Eq)]. Values are constants or parameters.
type IndexSeek struct {
	Var    string
	Labels []string // every label of the pattern node; the index is on one
	Index  string
	Type   string // BTREE or HASH
	Props  []string
	Eq     []Expr
	In     Expr
	Lo, Hi Expr
	LoIncl bool
	HiIncl bool
	Prefix Expr
	// Hinted is set when USING INDEX asked for this index.
	Hinted bool
	// Ordered: yield nodes in key order (descending when Desc), which
	// lets the seek replace a Sort on the seek's property (opt/order_seek.go).
	Ordered bool
	Desc    bool
	Cols    []Column
}

func (o *IndexSeek) Columns() []Column        { return o.Cols }
func (*IndexSeek) Children() []Operator       { return nil }
func (*IndexSeek) SetChild(i int, _ Operator) { noChild(i) }

// HashJoin joins two independent inputs on equal keys (USING JOIN ON
// a.x = b.y): it builds a hash table of Right by RightKey and probes it
// with LeftKey of each Left row. Rows whose key is null join nothing.
// Output columns are Left's followed by Right's, as a CrossProduct's.
// Adaptive (the equi-join rule's joins) lets the executor hash Left
// instead when Left ends within a bound of rows: the build side is the
// one the rows show small. Also are the Filter's further equalities of a
// property of each side (the equi-join rule's): the Filter above tests
// them, and the executor may drop early a pair one of them certainly
// fails (exec/hashjoin_also.go).
type HashJoin struct {
	Left, Right       Operator
	LeftKey, RightKey Expr // LeftKey over Left's columns, RightKey over Right's
	Also              []JoinKey
	Cols              []Column
	Adaptive          bool
	Physical
}

// JoinKey is an equality of a HashJoin's two sides: Left over Left's
// columns, Right over Right's.
type JoinKey struct{ Left, Right Expr }

func (o *HashJoin) Columns() []Column          { return o.Cols }
func (o *HashJoin) Children() []Operator       { return []Operator{o.Left, o.Right} }
func (o *HashJoin) SetChild(i int, c Operator) { *pick(i, &o.Left, &o.Right) = c }

// Detail renders the seek as EXPLAIN shows it:
// "p:Person(age) BTREE index_person_age [p.age > 30]".
func (o *IndexSeek) Detail() string {
	s := fmt.Sprintf("%s:%s(%s) %s %s [%s]", o.Var, strings.Join(o.Labels, ":"), strings.Join(o.Props, ", "),
		o.Type, o.Index, o.Condition())
	if o.Ordered {
		s += " ordered"
		if o.Desc {
			s += " DESC"
		}
	}
	if o.Hinted {
		s += " (USING INDEX)"
	}
	return s
}

// Condition is the predicate the seek answers: "p.age > 30 AND p.age < 40".
func (o *IndexSeek) Condition() string {
	var conds []string
	for i, e := range o.Eq {
		conds = append(conds, o.Var+"."+o.Props[i]+" = "+e.String())
	}
	if len(o.Eq) < len(o.Props) {
		p := o.Var + "." + o.Props[len(o.Eq)]
		switch {
		case o.In != nil:
			conds = append(conds, p+" IN "+o.In.String())
		case o.Prefix != nil:
			conds = append(conds, p+" STARTS WITH "+o.Prefix.String())
		}
		if o.Lo != nil {
			op := " > "
			if o.LoIncl {
				op = " >= "
			}
			conds = append(conds, p+op+o.Lo.String())
		}
		if o.Hi != nil {
			op := " < "
			if o.HiIncl {
				op = " <= "
			}
			conds = append(conds, p+op+o.Hi.String())
		}
	}
	return strings.Join(conds, " AND ")
}

func (o *IndexSeek) Describe() Description {
	return Description{Name: "IndexSeek", Args: o.Detail(), Label: labelList(o.Labels), Index: o.Index, Filter: o.Condition()}
}

func (o *HashJoin) Describe() Description {
	args := "on " + o.LeftKey.String() + " = " + o.RightKey.String()
	for _, k := range o.Also {
		args += " also " + k.Left.String() + " = " + k.Right.String()
	}
	if o.Adaptive {
		args += " build smaller side"
	}
	return Description{Name: "HashJoin", Args: args}
}

// IndexJoin pairs each row of Left with the nodes an index finds for
// values computed from that row: the plan of
// `UNWIND $ids AS k MATCH (n:P) WHERE n.id = k` (or MATCH … {id: k}),
// which would otherwise be a cartesian product with a label scan and a
// filter. Keys[i] (over Left's columns) is the value of Props[i]; the
// filter stays above, as for an IndexSeek. Output columns are Left's
// followed by the node, as the CrossProduct's it replaces.
type IndexJoin struct {
	Left   Operator
	Var    string
	Labels []string
	Index  string
	Type   string
	Props  []string
	Keys   []Expr
	Cols   []Column
}

func (o *IndexJoin) Columns() []Column          { return o.Cols }
func (o *IndexJoin) Children() []Operator       { return one(&o.Left) }
func (o *IndexJoin) SetChild(i int, c Operator) { o.Left = only(i, c) }

// Condition is the predicate the join's seeks answer: "n.id = k".
func (o *IndexJoin) Condition() string {
	s := ""
	for i, k := range o.Keys {
		if i > 0 {
			s += " AND "
		}
		s += o.Var + "." + o.Props[i] + " = " + k.String()
	}
	return s
}

func (o *IndexJoin) Describe() Description {
	return Description{Name: "IndexJoin",
		Args: fmt.Sprintf("%s:%s(%s) %s %s [%s]", o.Var, strings.Join(o.Labels, ":"),
			strings.Join(o.Props, ", "), o.Type, o.Index, o.Condition()),
		Label: labelList(o.Labels), Index: o.Index, Filter: o.Condition()}
}
