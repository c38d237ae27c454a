package engine

import (
	"context"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// ProcedureField is an input parameter or output column of a procedure:
// a name and a type name (ANY, BOOLEAN, INTEGER, FLOAT, NUMBER, STRING,
// LIST, MAP, NODE, RELATIONSHIP, PATH). Every field accepts null.
type ProcedureField = procs.Field

// ProcedureSignature names a procedure (namespaced: "ns.name") and lists
// its inputs and outputs. A procedure without outputs is void.
type ProcedureSignature = procs.Signature

// ProcedureFunc computes a procedure's rows for one call: args has one
// value per input (null, or a value of the input's type; an INTEGER
// passed for a FLOAT arrives as float64), each returned row one value per
// output. ctx is the calling query's context.
type ProcedureFunc func(ctx context.Context, args []vector.Value) ([][]vector.Value, error)

// RegisterProcedure makes a procedure callable with CALL, replacing one of
// the same name. Queries that started before it see the registry as it
// was when they were bound.
func (db *DB) RegisterProcedure(sig ProcedureSignature, fn ProcedureFunc) error {
	return db.procs.Register(&procs.Procedure{Signature: sig, Fn: func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
		return fn(c.Ctx, args)
	}})
}

// Procedures lists the names of the callable procedures, sorted.
func (db *DB) Procedures() []string { return db.procs.Names() }

// procedureRows lists every callable procedure for SHOW PROCEDURES: its
// name, its signature (inputs and output columns with their types) and
// the privilege a call needs, sorted by name.
func (db *DB) procedureRows() [][]string {
	names := db.procs.Names()
	rows := make([][]string, 0, len(names))
	for _, name := range names {
		p, ok := db.procs.Lookup(name)
		if !ok { // unregistered since Names was read
			continue
		}
		rows = append(rows, []string{p.Name, p.Signature.String(), access.PrivilegeNames(p.Required())})
	}
	return rows
}
