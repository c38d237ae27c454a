package procs

import (
	"sort"

	"github.com/quiverdb/quiver/vector"
)

// builtins are the catalog procedures. Each lists the names in use at the
// query's snapshot, sorted: a label some live node carries, a type some
// relationship has, a key some node or relationship has. Names the
// catalog remembers but nothing uses any more are left out.
func builtins() []*Procedure {
	return append([]*Procedure{
		{Signature: Signature{Name: "db.labels", Outputs: []Field{{Name: "label", Type: "STRING"}}, Requires: PrivRead}, Fn: labels},
		{Signature: Signature{Name: "db.relationshipTypes", Outputs: []Field{{Name: "relationshipType", Type: "STRING"}}, Requires: PrivRead}, Fn: relTypes},
		{Signature: Signature{Name: "db.propertyKeys", Outputs: []Field{{Name: "propertyKey", Type: "STRING"}}, Requires: PrivRead}, Fn: propertyKeys},
	}, schemaProcedures()...)
}

func labels(c *Context, _ []vector.Value) ([][]vector.Value, error) {
	var names []string
	for _, l := range c.Catalog.Labels() {
		if !c.Reader.LabelNodes(l).IsEmpty() {
			names = append(names, c.Catalog.LabelName(l))
		}
	}
	return column(names), nil
}

func relTypes(c *Context, _ []vector.Value) ([][]vector.Value, error) {
	var names []string
	for _, t := range c.Catalog.Types() {
		if c.Reader.TypeRelCount(t) > 0 {
			names = append(names, c.Catalog.TypeName(t))
		}
	}
	return column(names), nil
}

func propertyKeys(c *Context, _ []vector.Value) ([][]vector.Value, error) {
	var names []string
	for _, k := range c.Catalog.Keys() {
		if c.Reader.NodePropType(k) != vector.Null || c.Reader.RelPropType(k) != vector.Null {
			names = append(names, c.Catalog.KeyName(k))
		}
	}
	return column(names), nil
}

// column makes one single-column row per name, in name order.
func column(names []string) [][]vector.Value {
	sort.Strings(names)
	rows := make([][]vector.Value, len(names))
	for i, n := range names {
		rows[i] = []vector.Value{n}
	}
	return rows
}
