package engine

import (
	"github.com/quiverdb/quiver/engine/gql"
	"github.com/quiverdb/quiver/engine/plan"
)

// Writes reports whether the statement text writes when it runs: a
// query with an updating clause (in a nested CALL too), a schema change,
// or COPY … FROM. These are the statements a member of a replicated
// cluster that does not lead refuses with 25006 (Replication.Writable),
// so a frontend can route a request holding one before running any of
// it. A text that does not parse is no write: running it reports the
// syntax error.
func Writes(text string) bool {
	if len(text) > MaxQueryBytes {
		return false
	}
	stmt, err := gql.ParseCached(text, nil)
	if err != nil || stmt.Explain {
		return false // an EXPLAIN describes the write and runs nothing
	}
	switch {
	case stmt.Query != nil:
		return plan.QueryWrites(stmt.Query)
	case stmt.Copy != nil:
		return !stmt.Copy.To()
	case stmt.Schema != nil:
		return stmt.Schema.Kind != gql.SchemaShowIndexes && stmt.Schema.Kind != gql.SchemaShowConstraints
	}
	return false
}
