package gql

// Quantified path patterns, path modes and selectors (ISO/IEC 39075
// §16.6–16.7, Cypher 5's quantified path patterns). A quantified group
// holding one relationship is kept as that relationship, whose VarLength
// is the group's quantifier and whose Group carries the group's node
// patterns and WHERE: the rest of the language then sees a
// variable-length hop, and the binder plans the group's extras.

// QuantGroup is the body of ((x:L {p})-[r]->(y) WHERE c){m,n} beyond its
// relationship: the node patterns at both ends of one iteration and the
// condition every iteration must meet.
type QuantGroup struct {
	Pos Pos
	// Path is the group's pattern as written: Nodes[0] and Nodes[1] are
	// the node patterns of one iteration, Rels[0] is the relationship the
	// group is kept as. More than one relationship parses, and the binder
	// refuses it (not supported).
	Path  *PatternPart
	Where Expr // nil when absent
}

// Path modes (GQL's path mode prefix). ModeDefault is none written: a
// trail, as Cypher's variable-length patterns have always been.
const (
	ModeDefault = iota
	ModeWalk
	ModeTrail
	ModeAcyclic
	ModeSimple
)

// Selector kinds (GQL's path search prefix).
const (
	SelectNone     = iota
	SelectAll      // ALL
	SelectAny      // ANY [k]
	SelectShortest // SHORTEST k [GROUPS], ANY SHORTEST, ALL SHORTEST
)

// PathSearch is what a path pattern's prefix asks for: a mode, a selector
// with its count, or both. K is 1 when not written; Groups selects the
// paths of the K shortest lengths instead of K paths.
type PathSearch struct {
	Pos    Pos
	Mode   int
	Select int
	K      int64
	Groups bool
}
