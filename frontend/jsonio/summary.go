package jsonio

import "github.com/quiverdb/quiver/engine"

// AppendFields writes a result's schema fields, {"name":…,"type":…}
// separated by commas, and returns the row keys (each column's name as
// a JSON string and ':') that AppendRows takes.
func AppendFields(b []byte, cols []engine.Column) ([]byte, [][]byte) {
	keys := make([][]byte, len(cols))
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = AppendString(b, c.Name)
		b = append(b, `,"type":`...)
		b = AppendString(b, c.Type)
		b = append(b, '}')
		keys[i] = append(AppendString(nil, c.Name), ':')
	}
	return b, keys
}

// AppendWriteCounts writes a write statement's side effects as fields
// of an open object, each preceded by a comma: rows_affected,
// nodes_created, … labels_removed. A read writes nothing.
func AppendWriteCounts(b []byte, s engine.Summary) []byte {
	if !s.Write {
		return b
	}
	for _, f := range [...]struct {
		key string
		n   int64
	}{
		{"rows_affected", s.RowsAffected}, {"nodes_created", s.NodesCreated},
		{"relationships_created", s.RelationshipsCreated}, {"properties_set", s.PropertiesSet},
		{"labels_added", s.LabelsAdded}, {"nodes_deleted", s.NodesDeleted},
		{"relationships_deleted", s.RelationshipsDeleted}, {"properties_removed", s.PropertiesRemoved},
		{"labels_removed", s.LabelsRemoved},
	} {
		b = append(b, ",\""+f.key+"\":"...)
		b = AppendInt(b, f.n)
	}
	return b
}
