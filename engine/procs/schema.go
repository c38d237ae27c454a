package procs

import (
	"sort"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// IndexFields are the columns of db.indexes() and SHOW INDEXES.
// state is POPULATING, ONLINE or FAILED and populationPercent how far a
// populating index got (secondary indexes: engine/index; property
// indexes are built by the statement that creates them, so always
// ONLINE, 100).
var IndexFields = []Field{{Name: "name", Type: "STRING"}, {Name: "type", Type: "STRING"}, {Name: "label", Type: "STRING"}, {Name: "properties", Type: "STRING"},
	{Name: "entityType", Type: "STRING"}, {Name: "state", Type: "STRING"}, {Name: "populationPercent", Type: "FLOAT"}}

// IndexState reports an index's state and population percent.
type IndexState func(*catalog.Index) (string, float64)

// ConstraintFields are the columns of db.constraints() and SHOW
// CONSTRAINTS.
var ConstraintFields = []Field{{Name: "name", Type: "STRING"}, {Name: "type", Type: "STRING"}, {Name: "label", Type: "STRING"},
	{Name: "properties", Type: "STRING"}, {Name: "enforced", Type: "BOOLEAN"}}

// schemaProcedures list the indexes and constraints of the query's
// snapshot.
func schemaProcedures() []*Procedure {
	return []*Procedure{
		{Signature: Signature{Name: "db.indexes", Outputs: IndexFields, Requires: PrivRead}, Fn: indexes},
		{Signature: Signature{Name: "db.constraints", Outputs: ConstraintFields, Requires: PrivRead}, Fn: constraints},
	}
}

func schemaOf(c *Context) *catalog.Schema {
	if s := c.Reader.Schema(); s != nil {
		return s
	}
	return &catalog.Schema{}
}

func indexes(c *Context, _ []vector.Value) ([][]vector.Value, error) {
	return IndexRows(schemaOf(c), nil), nil
}

// IndexesProcedure is db.indexes() reporting states through state (the
// engine registers it over the built-in, which has no secondary indexes
// to ask about).
func IndexesProcedure(state IndexState) *Procedure {
	return &Procedure{Signature: Signature{Name: "db.indexes", Outputs: IndexFields, Requires: PrivRead},
		Fn: func(c *Context, _ []vector.Value) ([][]vector.Value, error) {
			return IndexRows(schemaOf(c), state), nil
		}}
}

func constraints(c *Context, _ []vector.Value) ([][]vector.Value, error) {
	return ConstraintRows(schemaOf(c)), nil
}

// IndexRows lists the indexes of sc, one row per index in name order:
// name, type (BTREE, HASH or FULLTEXT), label (or relationship type),
// properties (comma-separated), entityType (NODE or RELATIONSHIP),
// state and populationPercent (from state; nil: ONLINE, 100).
func IndexRows(sc *catalog.Schema, state IndexState) [][]vector.Value {
	var rows [][]vector.Value
	for _, ix := range sc.Indexes {
		st, pct := "ONLINE", 100.0
		if state != nil {
			st, pct = state(ix)
		}
		entity := "NODE"
		if ix.Rel {
			entity = "RELATIONSHIP"
		}
		rows = append(rows, []vector.Value{ix.Name, ix.Type.String(), ix.Label, ix.Properties(), entity, st, pct})
	}
	byName(rows)
	return rows
}

// ConstraintRows lists the constraints of sc: name, type (UNIQUE or
// EXISTS), label, properties, enforced (always true).
func ConstraintRows(sc *catalog.Schema) [][]vector.Value {
	var rows [][]vector.Value
	for _, c := range sc.Constraints {
		rows = append(rows, []vector.Value{c.Name, c.Kind.String(), c.Label, c.Key, true})
	}
	byName(rows)
	return rows
}

func byName(rows [][]vector.Value) {
	sort.Slice(rows, func(i, j int) bool { return rows[i][0].(string) < rows[j][0].(string) })
}
