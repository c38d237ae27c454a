package engine

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// entities resolves ids in result batches against the snapshot the query
// read (or, after a write, the snapshot its commit produced).
type entities struct {
	r   storage.Reader
	cat *catalog.Catalog
	buf []catalog.LabelID
}

func (e *entities) NodeLabels(dst []string, id uint64) []string {
	e.buf = e.r.AppendNodeLabels(e.buf[:0], id)
	for _, l := range e.buf {
		dst = append(dst, e.cat.LabelName(l))
	}
	return dst
}

func (e *entities) NodeProperties(id uint64, fn func(key string, v vector.Value)) {
	e.r.NodeProps(id, func(k catalog.KeyID, v vector.Value) { fn(e.cat.KeyName(k), v) })
}

func (e *entities) Relationship(id uint64) (typ string, start, end uint64) {
	t, src, dst, ok := e.r.Rel(id)
	if !ok {
		return "", 0, 0
	}
	return e.cat.TypeName(t), src, dst
}

func (e *entities) RelationshipProperties(id uint64, fn func(key string, v vector.Value)) {
	e.r.RelProps(id, func(k catalog.KeyID, v vector.Value) { fn(e.cat.KeyName(k), v) })
}

// resultColumns names and types the visible columns. A column whose type
// the plan could not fix takes the type of the values in the first batch.
func resultColumns(cols []plan.Column, first *vector.Batch) []Column {
	out := make([]Column, len(cols))
	for i, c := range cols {
		t := c.Type
		if t == vector.Any && first != nil {
			t = first.Cols[i].Type
		}
		name := t.String()
		if t == vector.Any && first != nil {
			name = valueTypeName(first.Cols[i], first)
		}
		out[i] = Column{Name: c.Name, Type: name}
	}
	return out
}

// valueTypeName names a generic column by the kind its values share in the
// batch, or ANY when they differ.
func valueTypeName(v *vector.Vector, b *vector.Batch) string {
	name := ""
	for i := 0; i < b.Rows(); i++ {
		x := v.Get(b.Row(i))
		if x == nil {
			continue
		}
		n := kindName(x)
		if name != "" && n != name {
			return "ANY"
		}
		name = n
	}
	if name == "" {
		return "ANY"
	}
	return name
}

func kindName(x vector.Value) string {
	switch x.(type) {
	case bool:
		return "BOOLEAN"
	case int64:
		return "INTEGER"
	case float64:
		return "FLOAT"
	case string:
		return "STRING"
	case []vector.Value:
		return "LIST"
	case map[string]vector.Value:
		return "MAP"
	case vector.NodeRef:
		return "NODE"
	case vector.RelRef:
		return "RELATIONSHIP"
	case vector.Path:
		return "PATH"
	}
	return "ANY"
}
