package jsonio

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/jsontext"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// This file writes JSON by hand, straight from typed vectors into a byte
// slice: no reflection and no map per row on the hot path.

// AppendString appends s as a JSON string (jsontext.AppendString).
func AppendString(b []byte, s string) []byte { return jsontext.AppendString(b, s) }

// AppendInt appends v in decimal.
func AppendInt(b []byte, v int64) []byte { return jsontext.AppendInt(b, v) }

// AppendFloat appends a float that reads as one, null when it has no JSON
// form (jsontext.AppendFloat).
func AppendFloat(b []byte, f float64) []byte { return jsontext.AppendFloat(b, f) }

// Encoder writes values of one result; it resolves entities through the
// result and reuses its scratch space.
type Encoder struct {
	Ents   engine.Entities
	labels []string
}

// AppendCell writes row r of v.
func (e *Encoder) AppendCell(b []byte, v *vector.Vector, r int) []byte {
	if v.IsNull(r) {
		return append(b, "null"...)
	}
	switch v.Type {
	case vector.Bool:
		return strconv.AppendBool(b, v.Bools[r])
	case vector.Int64:
		return AppendInt(b, v.I64[r])
	case vector.Float64:
		return AppendFloat(b, v.F64[r])
	case vector.String:
		return AppendString(b, v.Str[r])
	case vector.Node:
		return e.AppendNode(b, v.IDs[r])
	case vector.Rel:
		return e.AppendRel(b, v.IDs[r])
	case vector.Any:
		return e.AppendValue(b, v.Any[r], 0)
	}
	return append(b, "null"...)
}

// maxNesting bounds recursion through nested lists and maps. Values nest
// at most vector.MaxValueDepth levels (the engine refuses deeper ones),
// and collecting them adds a level per aggregation; past twice that a
// value could only come from a bug, and is written as null rather than
// overflowing the stack.
const maxNesting = 2 * vector.MaxValueDepth

// AppendValue writes a generic value.
func (e *Encoder) AppendValue(b []byte, v vector.Value, depth int) []byte {
	if depth > maxNesting {
		return append(b, "null"...)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int64:
		return AppendInt(b, x)
	case float64:
		return AppendFloat(b, x)
	case string:
		return AppendString(b, x)
	case []vector.Value:
		b = append(b, '[')
		for i, el := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendValue(b, el, depth+1)
		}
		return append(b, ']')
	case map[string]vector.Value:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendString(b, k)
			b = append(b, ':')
			b = e.AppendValue(b, x[k], depth+1)
		}
		return append(b, '}')
	case vector.NodeRef:
		return e.AppendNode(b, uint64(x))
	case vector.RelRef:
		return e.AppendRel(b, uint64(x))
	case vector.Path:
		b = append(b, `{"nodes":[`...)
		for i, n := range x.Nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendNode(b, n)
		}
		b = append(b, `],"relationships":[`...)
		for i, r := range x.Rels {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.AppendRel(b, r)
		}
		return append(b, "]}"...)
	case temporal.Date, temporal.LocalTime, temporal.Time, temporal.LocalDateTime, temporal.DateTime, temporal.Duration:
		// Temporal values travel as their ISO 8601 strings; the schema's
		// field type tells them apart from strings.
		return AppendString(b, x.(fmt.Stringer).String())
	}
	return append(b, "null"...)
}

// AppendNode writes {"id":…,"labels":[…],"properties":{…}}.
func (e *Encoder) AppendNode(b []byte, id uint64) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"labels":[`...)
	e.labels = e.Ents.NodeLabels(e.labels[:0], id)
	for i, l := range e.labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, l)
	}
	b = append(b, `],"properties":`...)
	b = e.appendProps(b, func(fn func(string, vector.Value)) { e.Ents.NodeProperties(id, fn) })
	return append(b, '}')
}

// AppendRel writes {"id":…,"type":…,"start":…,"end":…,"properties":{…}}.
func (e *Encoder) AppendRel(b []byte, id uint64) []byte {
	typ, start, end := e.Ents.Relationship(id)
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"type":`...)
	b = AppendString(b, typ)
	b = append(b, `,"start":`...)
	b = strconv.AppendUint(b, start, 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendUint(b, end, 10)
	b = append(b, `,"properties":`...)
	b = e.appendProps(b, func(fn func(string, vector.Value)) { e.Ents.RelationshipProperties(id, fn) })
	return append(b, '}')
}

func (e *Encoder) appendProps(b []byte, each func(func(string, vector.Value))) []byte {
	b = append(b, '{')
	first := true
	each(func(k string, v vector.Value) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = AppendString(b, k)
		b = append(b, ':')
		b = e.AppendValue(b, v, 1)
	})
	return append(b, '}')
}

// AppendRows writes the rows of a batch as JSON objects keyed by column
// name, separated by commas; first tells whether a row was written before.
// keys holds the column names already encoded as JSON strings plus ':'.
func (e *Encoder) AppendRows(b []byte, batch *vector.Batch, keys [][]byte, first bool) ([]byte, bool) {
	for i := 0; i < batch.Rows(); i++ {
		r := batch.Row(i)
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '{')
		for c, v := range batch.Cols {
			if c > 0 {
				b = append(b, ',')
			}
			b = append(b, keys[c]...)
			b = e.AppendCell(b, v, r)
		}
		b = append(b, '}')
	}
	return b, first
}
