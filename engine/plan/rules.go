package plan

import (
	"slices"
	"sort"
)

// Optimizer rules are the optional choices the binder and the executor
// make for speed: each has a name and can be switched off, which must never
// change a query's result, only how it is computed. Metamorphic tests run
// queries with each rule off and compare the rows with all rules on.
const (
	// RuleSelectiveStart starts a pattern part from its more selective
	// end (a bound node, then one with properties, then one with labels)
	// instead of from the node written first.
	RuleSelectiveStart = "selective-start"
	// RuleExpandLabels checks the labels required of an expansion's far
	// node inside the Expand, as it reads the neighbours, instead of in a
	// Filter above it.
	RuleExpandLabels = "expand-labels"
	// RuleConstantFold folds list and map literals of constants into one
	// constant value at bind time.
	RuleConstantFold = "constant-fold"
	// RuleTopKSort makes a Sort under LIMIT keep a bounded heap of the
	// first SKIP+LIMIT rows instead of sorting its whole input.
	RuleTopKSort = "topk-sort"
	// RuleTypedSort sorts through the key columns' typed slices and a
	// prefix of the first key, with an unstable sort ended on the row
	// number, in parts on the statement's workers merged after; a top-k
	// whose k is a large share of its input sorts it all
	// (exec/sort_typed.go).
	RuleTypedSort = "typed-sort"
	// RuleTopKBar lets a top-k Sort whose first key is an INTEGER,
	// FLOAT or STRING property of the scanned node publish its current
	// k-th value as a bar, which a test right above the scan applies
	// through the column's view (a STRING column's dictionary codes,
	// ranked once per dictionary; past a large SKIP over a bare scan,
	// primed from the codes' counts before the first row), so rows that
	// cannot enter the top k are never projected (topk_bar.go,
	// exec/topk_bar.go, exec/topk_prime.go).
	RuleTopKBar = "topk-bar"
	// RuleEndpointsBFS runs a variable-length expansion marked
	// EndpointsOnly as a breadth-first search producing each far end
	// once, instead of enumerating every chain.
	RuleEndpointsBFS = "endpoints-bfs"
	// RuleInSetLookup evaluates IN against a constant or parameter list
	// of integers or strings as a hash-set lookup per row.
	RuleInSetLookup = "in-set-lookup"
	// RuleCountExpand computes count(*) (or the count of a variable of
	// the chain) over a node scan and one or two plain expansions
	// (optionally grouped by the start node or its properties), or per
	// start node over an OPTIONAL MATCH of such a chain, from CSR degrees
	// and neighbour counts, without producing the rows
	// (opt/count_pushdown.go).
	RuleCountExpand = "count-expand"
	// RuleCountFilter lets a CountExpand take the filters of its chain
	// that each read one node (the start node, also when it is filtered
	// under an OPTIONAL MATCH, or a hop's far end) through operators
	// that cannot fail: each is evaluated once per candidate
	// node into the set of start nodes, or of far ends tested per
	// neighbour (opt/count_filter.go, exec/countexpand_filter.go).
	RuleCountFilter = "count-filter"
	// RuleRangeFilter evaluates a WHERE that is a conjunction of integer
	// property comparisons with constants as range tests over the
	// property's dense column view, narrowing the selection directly
	// (exec/filter_kernel.go).
	RuleRangeFilter = "range-filter"
	// RuleFilterPushdown moves each conjunct of a WHERE down to just above
	// the operator that binds the last column it reads, past expansions
	// that only add columns (opt/filter_pushdown.go).
	RuleFilterPushdown = "filter-pushdown"
	// RuleExpandIntersect fuses an expansion and the one that closes a
	// cycle on an already bound node into an ExpandIntersect, which
	// intersects the two nodes' sorted neighbour lists
	// (opt/intersect.go).
	RuleExpandIntersect = "expand-intersect"
	// RuleCodeFilter evaluates a WHERE that is one equality of a node's
	// string property with a string literal or parameter on the
	// column's dictionary codes (exec/filter_codes.go).
	RuleCodeFilter = "code-filter"
	// RuleCodeMatch evaluates a WHERE that is, or has as one conjunct, a
	// test of a node's string property (=, STARTS WITH, ENDS WITH,
	// CONTAINS with a string, IN a list of strings) once per dictionary
	// code of the column, then keeps the rows by their codes; the other
	// conjuncts are tested on the rows kept (exec/filter_match.go).
	RuleCodeMatch = "code-match"
	// RuleEquiJoin joins the two sides of a CrossProduct by hashing when
	// the WHERE just above it equates a property of each side, the side
	// hashed chosen from the rows (opt/equi_join.go,
	// exec/hashjoin_adaptive.go).
	RuleEquiJoin = "equi-join"
	// RuleFarSet evaluates the conjuncts of a WHERE over an expansion
	// that read only its far node once per candidate node into a bitset,
	// once the rows filtered outnumber an eighth of the candidates
	// (exec/far_set.go).
	RuleFarSet = "far-set"
	// RuleFactorizedAgg computes an Aggregate over one expansion from a
	// node scan, grouped by the start node, by walking each start node's
	// lists over integer property views, without the expanded rows
	// (exec/factor_agg.go).
	RuleFactorizedAgg = "factorized-agg"
	// RuleIdentityGroup runs an Aggregate over one row per distinct start
	// node, grouped by the node or a property no two nodes share, as a
	// Project (exec/identity_agg.go).
	RuleIdentityGroup = "identity-group"
	// RuleRelScanAgg computes an Aggregate over one expansion from a node
	// scan, grouped by one INTEGER property of the relationship (and
	// optionally one of the start node) and counting rows, as a scan of
	// the property's slot-ordered views of the types' relationships,
	// counted by value, when the end labels hold for every live node
	// (exec/rel_scan_agg.go, exec/rel_scan_node.go).
	RuleRelScanAgg = "rel-scan-agg"
	// RuleLabelSets counts the nodes of a scan grouped by keys that read
	// the node only through labels(n) from the label bitmaps, one row per
	// distinct label set instead of one per node (opt/label_sets.go).
	RuleLabelSets = "label-sets"
	// RuleLabelCover skips an expansion's far-end label test when the
	// label is carried by every live node of the snapshot read.
	RuleLabelCover = "label-cover"
	// RuleIndexUnion reads a node pattern without a single label (none,
	// or a disjunction in WHERE) whose property predicate indexes serve
	// on some labels as the union of those index seeks and the nodes no
	// index covers that hold the property, instead of scanning every
	// node (opt/index_union.go).
	RuleIndexUnion = "index-union"
	// RulePathPrune moves all() and none() conjuncts of a WHERE over the
	// relationships or nodes of a variable-length chain into the
	// expansion, which tests each element as the chain grows and never
	// extends a chain that failed (opt/path_prune.go).
	RulePathPrune = "path-prune"
	// RuleCodeCall evaluates a string function of a node's STRING
	// property (the other arguments constants or parameters) once per
	// entry of the column's dictionary and reads each row's answer by its
	// code, instead of once per row (physical/calls.go,
	// engine/expr/code_call.go).
	RuleCodeCall = "code-call"
	// RuleCodeDistinct computes a DISTINCT over properties of nodes, and
	// count(DISTINCT) of one, as a pass over the properties' dictionary
	// codes (STRING) and integer view codes (INTEGER) into a bitmap of
	// the code combinations, or a hash set of them when the bitmap would
	// be large, on the statement's workers; the rows without a code take
	// the general path's byte keys (exec/code_distinct.go).
	RuleCodeDistinct = "code-distinct"
)

// RuleNames lists every optimizer rule, sorted.
func RuleNames() []string {
	names := []string{RuleSelectiveStart, RuleExpandLabels, RuleConstantFold, RuleTopKSort, RuleEndpointsBFS,
		RuleInSetLookup, RuleCountExpand, RuleCountFilter, RuleRangeFilter, RuleLabelCover, RuleFilterPushdown, RuleExpandIntersect, RuleLabelSets, RuleCodeFilter, RuleFarSet, RuleFactorizedAgg, RuleIdentityGroup, RuleRelScanAgg, RuleIndexUnion, RulePathPrune, RuleTypedSort, RuleTopKBar, RuleCodeMatch, RuleEquiJoin, RuleCodeCall, RuleCodeDistinct}
	sort.Strings(names)
	return names
}

// IsRule reports whether name is an optimizer rule.
func IsRule(name string) bool { return slices.Contains(RuleNames(), name) }

// Options are the choices a statement is bound and executed with. The zero
// value enables every rule.
type Options struct {
	// Disabled holds the names of the rules switched off.
	Disabled map[string]bool
}

// On reports whether rule is enabled.
func (o Options) On(rule string) bool { return !o.Disabled[rule] }
