package procs

import (
	"sort"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// IndexFields are the columns of db.indexes() and SHOW INDEXES.
var IndexFields = []Field{{Name: "name", Type: "STRING"}, {Name: "type", Type: "STRING"}, {Name: "label", Type: "STRING"}, {Name: "properties", Type: "STRING"}}

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
	return IndexRows(schemaOf(c)), nil
}

func constraints(c *Context, _ []vector.Value) ([][]vector.Value, error) {
	return ConstraintRows(schemaOf(c)), nil
}

// IndexRows lists the indexes of sc, one row per index in name order:
// name, type (BTREE or HASH), label, properties (comma-separated).
func IndexRows(sc *catalog.Schema) [][]vector.Value {
	var rows [][]vector.Value
	for _, ix := range sc.Indexes {
		rows = append(rows, []vector.Value{ix.Name, ix.Type.String(), ix.Label, ix.Properties()})
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
