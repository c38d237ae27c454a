package gql

// The subqueries of Cypher 5 and GQL (parse_subqueries.go): CALL { … }
// as a clause, and COUNT { … }, COLLECT { … } and EXISTS { … } over a
// whole query as expressions. EXISTS { pattern [WHERE …] } keeps its own
// node (Exists), as before.

// CallSubquery is [OPTIONAL] CALL [(scope)] { query } [IN TRANSACTIONS
// [OF n ROWS]]. Without a scope clause the query imports the outer
// variables its first clause, an importing WITH, names (Cypher 5); with
// one (HasScope) it imports Scope, or every outer variable when ScopeAll
// (CALL (*) { … }), and CALL () { … } imports none.
type CallSubquery struct {
	Pos      Pos
	Optional bool
	HasScope bool
	ScopeAll bool
	Scope    []*Variable
	Query    *Query
	// InTransactions commits the subquery's work every BatchRows outer
	// rows (nil: the default batch size).
	InTransactions bool
	BatchRows      Expr
	// Concurrent is IN [n] CONCURRENT TRANSACTIONS, n in Concurrency
	// (nil when not given).
	Concurrent  bool
	Concurrency Expr
	// OnError is the ON ERROR behaviour as written (CONTINUE, BREAK,
	// FAIL or RETRY), empty when not given; ReportStatus the variable of
	// REPORT STATUS AS v. TxPos is where IN TRANSACTIONS' options start.
	OnError      string
	ReportStatus *Variable
	TxPos        Pos
}

func (c *CallSubquery) Position() Pos { return c.Pos }

// Subquery kinds: what a subquery expression makes of its rows.
const (
	SubqueryExists  = "EXISTS"
	SubqueryCount   = "COUNT"
	SubqueryCollect = "COLLECT"
)

// Subquery is COUNT { … }, COLLECT { … } or EXISTS { … } over a whole
// query (a bare pattern is read as MATCH pattern). The query sees every
// variable of the enclosing scope.
type Subquery struct {
	Pos   Pos
	Kind  string
	Query *Query
}

func (e *Subquery) Position() Pos { return e.Pos }
