package jsonio

import (
	"strconv"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/jsontext"
	"github.com/quiverdb/quiver/jsonvalue"
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
	Ents engine.Entities
	v    jsonvalue.Encoder
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

// AppendValue writes a generic value nested depth levels deep.
func (e *Encoder) AppendValue(b []byte, v vector.Value, depth int) []byte {
	return e.values().AppendValue(b, v, depth)
}

// AppendNode writes {"id":…,"labels":[…],"properties":{…}}.
func (e *Encoder) AppendNode(b []byte, id uint64) []byte { return e.values().AppendNode(b, id) }

// AppendRel writes {"id":…,"type":…,"start":…,"end":…,"properties":{…}}.
func (e *Encoder) AppendRel(b []byte, id uint64) []byte { return e.values().AppendRel(b, id) }

// values is the value writer, resolving entities through Ents.
func (e *Encoder) values() *jsonvalue.Encoder {
	e.v.Ents = e.Ents
	return &e.v
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
