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
// the plan could not fix takes the type of its first batch's vector when
// that vector is typed: a typed vector comes from a homogeneous stored
// column or a typed kernel, so every batch has the same type. A generic
// column is named by what the plan knows of it (LIST, MAP) or ANY; its
// values are not inspected, as a sample would make the answer depend on
// the batch size.
func resultColumns(cols []plan.Column, first *vector.Batch) []Column {
	out := make([]Column, len(cols))
	for i, c := range cols {
		t := c.Type
		if t == vector.Any && first != nil {
			t = first.Cols[i].Type
		}
		name := t.String()
		if t == vector.Any {
			name = "ANY"
			if c.Kind != "" {
				name = c.Kind
			}
		}
		out[i] = Column{Name: c.Name, Type: name}
	}
	return out
}
