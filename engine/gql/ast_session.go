package gql

// SessionKind tells the session statements apart.
type SessionKind uint8

// Session statement kinds.
const (
	// SessionSet is SET <parameter> = <value>.
	SessionSet SessionKind = iota + 1
	// SessionShow is SHOW <parameter>.
	SessionShow
	// SessionShowAll is SHOW ALL.
	SessionShowAll
	// SessionShowFunctions is SHOW FUNCTIONS.
	SessionShowFunctions
	// SessionSavepoint is SAVEPOINT <name> (inside a transaction).
	SessionSavepoint
	// SessionRollbackTo is ROLLBACK TO [SAVEPOINT] <name>.
	SessionRollbackTo
	// SessionRelease is RELEASE [SAVEPOINT] <name>.
	SessionRelease
	// SessionCheckpoint is CHECKPOINT: write a checkpoint now.
	SessionCheckpoint
	// SessionShowProcedures is SHOW PROCEDURES.
	SessionShowProcedures
)

// Session is a session statement: it reads or changes a server setting
// instead of the graph. The parser knows the statement forms only; which
// parameters exist and which values they take is the engine's business.
type Session struct {
	Kind SessionKind
	Pos  Pos
	// Name is the parameter as written (SET and SHOW <parameter>), or the
	// savepoint's name.
	Name    string
	NamePos Pos
	// Value is the literal of SET: int64, float64, string or bool.
	Value    any
	ValuePos Pos
}

// String prints the statement in the canonical form Statement.String
// uses; it parses back to the same statement.
func (s *Session) String() string {
	switch s.Kind {
	case SessionSet:
		return "SET " + quoteName(s.Name) + " = " + formatLiteral(s.Value)
	case SessionShow:
		return "SHOW " + quoteName(s.Name)
	case SessionShowAll:
		return "SHOW ALL"
	case SessionShowFunctions:
		return "SHOW FUNCTIONS"
	case SessionShowProcedures:
		return "SHOW PROCEDURES"
	case SessionSavepoint:
		return "SAVEPOINT " + quoteName(s.Name)
	case SessionRollbackTo:
		return "ROLLBACK TO SAVEPOINT " + quoteName(s.Name)
	case SessionRelease:
		return "RELEASE SAVEPOINT " + quoteName(s.Name)
	case SessionCheckpoint:
		return "CHECKPOINT"
	}
	panic("BUG: gql: unknown session statement kind")
}
