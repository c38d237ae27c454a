package plan

import (
	"strings"

	"github.com/quiverdb/quiver/engine/functions"
)

// Path operators and the functions paths bind to. They sit apart from
// operator.go so that the path work stays one concept in one file.

// Unbounded is the Max of a variable-length pattern without upper bound.
const Unbounded = -1

// VarLengthExpand follows chains of Min..Max relationships from the node in
// column From (trail semantics: no relationship twice in one chain, and
// none equal to a relationship in the Distinct columns, which hold single
// relationships or lists of them). It appends the list of relationships
// (a LIST column, hidden when RelVar is empty), the far end node unless
// Into names the column of an already bound one, and, when PathCol is set,
// a hidden column holding the chain as a vector.Path in traversal order.
//
// EndpointsOnly switches the executor to a breadth-first search that
// produces each reachable far end once (at its minimum depth) instead of
// every chain: the binder sets it only when nothing but the distinct far
// ends is observable, and then the relationship column holds nulls.
type VarLengthExpand struct {
	Physical
	Input    Operator
	From     int
	RelVar   string
	ToVar    string
	Types    []string
	Dir      Direction
	Min, Max int // Max is Unbounded for no upper bound
	ToLabels []string
	Into     int
	// RelKeys/RelVals: every relationship of the chain must have these
	// property values (evaluated over the input row).
	RelKeys       []string
	RelVals       []Expr
	Distinct      []int
	PathCol       bool
	EndpointsOnly bool
	// OmitRels: nothing reads the relationship list (the relationship is
	// anonymous and no later pattern compares against it), so the
	// executor leaves the column null instead of building a list per row.
	OmitRels bool
	// Reversed: the hop is planned from the end written last, so the
	// executor lists its relationships back to front, which is the
	// written order Cypher gives the list in.
	Reversed bool
	// RelTest, NodeTest and InnerTest are tests of one element of the
	// chain, moved into the expansion from all() and none() conjuncts of
	// a WHERE (opt/path_prune.go). Each reads its element as column 0 and
	// nothing else: every relationship of a chain must pass RelTest,
	// every node NodeTest (the start included) and every node but its two
	// ends InnerTest, so a chain that fails one is never extended.
	RelTest, NodeTest, InnerTest Expr
	Pattern                      string // the pattern as written, for EXPLAIN
	Cols                         []Column
}

// Pruned reports whether the expansion tests the chain's elements as it
// grows.
func (o *VarLengthExpand) Pruned() bool {
	return o.RelTest != nil || o.NodeTest != nil || o.InnerTest != nil
}

// ShortestPath finds, for each input row, a shortest chain of Min..Max
// relationships (Min is 0 or 1) from the node in column From to the node in
// column To, or every shortest one when All is set, by breadth-first
// search. It appends the relationship list (hidden when RelVar is empty)
// and a hidden vector.Path column. Rows without such a chain are dropped.
type ShortestPath struct {
	Input    Operator
	From, To int
	RelVar   string
	Types    []string
	Dir      Direction
	Min, Max int
	RelKeys  []string
	RelVals  []Expr
	All      bool
	// Steer marks a search written as shortestPath(…) or
	// allShortestPaths(…): the all() and none() conjuncts of its WHERE
	// over the path's elements restrict the search itself (opt/steer.go),
	// which then finds the shortest paths among those whose elements
	// pass, as Neo4j's functions do. A GQL search (ANY SHORTEST, ALL
	// SHORTEST) selects the shortest paths first and its WHERE filters
	// them.
	Steer bool
	// RelTest, NodeTest and InnerTest are the tests of VarLengthExpand of
	// an all() or none() conjunct of the WHERE above. With Steer, the
	// search takes only the relationships and nodes that pass and the
	// conjunct leaves the WHERE. Otherwise they are set only with All,
	// and the conjunct stays (opt/path_prune.go): the search runs without
	// them, and the shortest paths it found are enumerated skipping the
	// hops through elements that fail, so only those the WHERE keeps are
	// built; a path longer than the shortest one is never a result.
	RelTest, NodeTest, InnerTest Expr
	Pattern                      string
	Cols                         []Column
}

// Pruned reports whether the search tests the paths' elements.
func (o *ShortestPath) Pruned() bool {
	return o.RelTest != nil || o.NodeTest != nil || o.InnerTest != nil
}

func (o *VarLengthExpand) Columns() []Column          { return o.Cols }
func (o *VarLengthExpand) Children() []Operator       { return one(&o.Input) }
func (o *ShortestPath) Columns() []Column             { return o.Cols }
func (o *ShortestPath) Children() []Operator          { return one(&o.Input) }
func (o *VarLengthExpand) SetChild(i int, c Operator) { o.Input = only(i, c) }
func (o *ShortestPath) SetChild(i int, c Operator)    { o.Input = only(i, c) }

// A named path is a call of functions.OpPath over its parts in written
// order: the first node, then per hop a relationship (or a var-length
// segment as a vector.Path), a boolean constant telling whether the
// segment was traversed against the written order, and the next node. A
// null node makes the path null (an OPTIONAL MATCH that found nothing).

// KindPath is the Kind of a column holding paths.
const KindPath = "PATH"

// pathLength rewrites length(p) of a known PATH into functions.OpPathLength, so that
// length over strings and lists stays a separate function.
func pathLength(name string, args []Expr) string {
	if name == "length" && len(args) == 1 && KindOf(args[0]) == KindPath {
		return functions.OpPathLength
	}
	return name
}

// Describe names VarLengthExpand VariableLengthExpand, the name the
// interface contract uses.
func (o *VarLengthExpand) Describe() Description {
	args := o.Pattern
	if o.Into >= 0 {
		args += " into"
	}
	if len(o.RelKeys) > 0 {
		args += propText(o.RelKeys, o.RelVals)
	}
	args += prunedText(o.RelTest, o.NodeTest, o.InnerTest)
	if o.EndpointsOnly {
		args += " endpoints only"
	}
	if len(o.Distinct) > 0 {
		var names []string
		for _, d := range o.Distinct {
			names = append(names, colName(o.Cols[d]))
		}
		args += " distinct from " + strings.Join(names, ", ")
	}
	return Description{Name: "VariableLengthExpand", Args: args, Pattern: anonymous.Replace(o.Pattern)}
}

func (o *ShortestPath) Describe() Description {
	d := Description{Name: "ShortestPath", Args: o.Pattern, Pattern: anonymous.Replace(o.Pattern)}
	if o.All {
		d.Verb = "AllShortestPaths"
	}
	if len(o.RelKeys) > 0 {
		d.Args += propText(o.RelKeys, o.RelVals)
	}
	d.Args += prunedText(o.RelTest, o.NodeTest, o.InnerTest)
	return d
}

// prunedText shows the element tests of a path search in EXPLAIN.
func prunedText(rel, node, inner Expr) string {
	s := ""
	for _, t := range []struct {
		what string
		e    Expr
	}{{"relationships", rel}, {"nodes", node}, {"inner nodes", inner}} {
		if t.e != nil {
			s += " pruned: " + t.what + " " + t.e.String()
		}
	}
	return s
}
