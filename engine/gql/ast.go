package gql

// Statement is one parsed query with its EXPLAIN/PROFILE prefix.
type Statement struct {
	Explain bool
	Profile bool
	Query   *Query
	// Session is set instead of Query for a session statement (SET
	// <parameter> = <value>, SHOW …; ast_session.go).
	Session *Session
	// Schema is set instead of Query for an index or constraint statement
	// (ast_schema.go).
	Schema *Schema
	// Copy is set instead of Query for COPY … FROM (ast_copy.go).
	Copy *Copy
	// Graph is set instead of Query for a graph management statement
	// (CREATE GRAPH, DROP GRAPH, SHOW GRAPHS, USE alone; ast_graph.go).
	Graph *Graph
	// Use is the USE name prefix of any other statement: the graph it
	// runs on (nil: the session's or the request's).
	Use *Use
	// depth is the deepest level the parser reached (MaxDepth bounds it).
	depth int
}

// Query is single queries joined by UNION; UnionAll[i] tells whether the
// union before Parts[i+1] keeps duplicates.
type Query struct {
	Parts    []*SingleQuery
	UnionAll []bool
}

// SingleQuery is a sequence of clauses.
type SingleQuery struct{ Clauses []Clause }

// Clause is one clause of a query.
type Clause interface{ Position() Pos }

// Match is MATCH or OPTIONAL MATCH.
type Match struct {
	Pos      Pos
	Optional bool
	Pattern  *Pattern
	// Hints are the planner hints written after the pattern
	// (ast_schema.go).
	Hints []*Hint
	Where Expr
}

// Create is CREATE.
type Create struct {
	Pos     Pos
	Pattern *Pattern
}

// Merge is MERGE with its ON CREATE / ON MATCH actions.
type Merge struct {
	Pos      Pos
	Pattern  *Pattern
	OnCreate []*SetItem
	OnMatch  []*SetItem
}

// SetItem is one item of SET: n.p = e, n = e, n += e, or n:L.
type SetItem struct {
	Pos    Pos
	Target Expr // a variable or a property access
	Op     string
	Value  Expr
	Labels []string
}

// Set is SET.
type Set struct {
	Pos   Pos
	Items []*SetItem
}

// Remove is REMOVE of properties (Expr a property access) or labels.
type Remove struct {
	Pos   Pos
	Items []*SetItem
}

// Delete is DELETE or DETACH DELETE.
type Delete struct {
	Pos    Pos
	Detach bool
	Exprs  []Expr
}

// Unwind is UNWIND e AS v.
type Unwind struct {
	Pos  Pos
	Expr Expr
	Var  string
}

// Call is CALL ns.proc(args) YIELD ... WHERE ...
type Call struct {
	Pos       Pos
	Namespace []string
	Name      string
	Args      []Expr
	HasArgs   bool
	Yield     []*YieldItem
	YieldStar bool
	Where     Expr
}

// YieldItem is one column of YIELD.
type YieldItem struct {
	Name  string
	Alias string
}

// Projection is the body of RETURN and WITH.
type Projection struct {
	Pos      Pos
	Distinct bool
	Star     bool
	Items    []*ReturnItem
	OrderBy  []*SortItem
	Skip     Expr
	Limit    Expr
	// GroupBy are the explicit grouping keys of RETURN … GROUP BY
	// (ast_statements.go).
	GroupBy []*GroupKey
}

// ReturnItem is one projected expression. Text is its exact source text.
type ReturnItem struct {
	Expr  Expr
	Alias string
	Text  string
}

// SortItem is one ORDER BY key. Text is its exact source text, which
// matches a projected column named by the same text.
type SortItem struct {
	Pos  Pos
	Expr Expr
	Text string
	Desc bool
}

// Return is RETURN.
type Return struct {
	Pos        Pos
	Projection Projection
}

// With is WITH, optionally followed by WHERE.
type With struct {
	Pos        Pos
	Projection Projection
	Where      Expr
}

func (c *Match) Position() Pos  { return c.Pos }
func (c *Create) Position() Pos { return c.Pos }
func (c *Merge) Position() Pos  { return c.Pos }
func (c *Set) Position() Pos    { return c.Pos }
func (c *Remove) Position() Pos { return c.Pos }
func (c *Delete) Position() Pos { return c.Pos }
func (c *Unwind) Position() Pos { return c.Pos }
func (c *Call) Position() Pos   { return c.Pos }
func (c *Return) Position() Pos { return c.Pos }
func (c *With) Position() Pos   { return c.Pos }

// Pattern is comma-separated pattern parts.
type Pattern struct{ Parts []*PatternPart }

// Shortest-path markers of a pattern part.
const (
	ShortestNone = iota
	ShortestOne
	ShortestAll
)

// PatternPart is a path: Nodes[0], Rels[0], Nodes[1], ... with
// len(Nodes) == len(Rels)+1. Var names the path.
type PatternPart struct {
	Pos      Pos
	Var      string
	Shortest int
	// Legacy marks a search written as shortestPath(…) or
	// allShortestPaths(…) rather than with a GQL prefix (ANY SHORTEST,
	// ALL SHORTEST): the WHERE of its MATCH restricts the search (the
	// shortest paths among those that pass), where a GQL search's WHERE
	// filters the paths selected.
	Legacy bool
	Nodes  []*NodePattern
	Rels   []*RelPattern
	// Search is a path mode or selector beyond ANY / ALL SHORTEST
	// (ast_quantified.go); nil when none is written.
	Search *PathSearch
}

// NodePattern is (v:L1:L2 {props}).
type NodePattern struct {
	Pos    Pos
	Var    string
	Labels []string
	Props  Expr // *MapLit or *Param, nil when absent
	// LabelExpr is a label expression other than a plain conjunction
	// (then Labels is empty).
	LabelExpr *LabelExpr
}

// Direction of a relationship pattern as written.
type Direction uint8

// Directions: -[]-> is DirRight, <-[]- is DirLeft, -[]- is DirBoth.
const (
	DirBoth Direction = iota
	DirRight
	DirLeft
)

// Range is the *min..max of a variable-length relationship; nil bounds
// are open.
type Range struct {
	Min, Max *int64
}

// RelPattern is -[v:T1|T2 *1..3 {props}]->.
type RelPattern struct {
	Pos       Pos
	Var       string
	Types     []string
	Dir       Direction
	VarLength *Range
	Props     Expr
	// TypeExpr is a type expression other than a plain disjunction (then
	// Types is empty).
	TypeExpr *LabelExpr
	// Group is set when the relationship stands for a quantified path
	// pattern ((x)-[r]->(y) WHERE …){m,n} (ast_quantified.go).
	Group *QuantGroup
}
