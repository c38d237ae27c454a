package jsonio

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// This file writes JSON by hand, straight from typed vectors into a byte
// slice: no reflection and no map per row on the hot path.

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string. Control characters are escaped,
// invalid UTF-8 becomes U+FFFD, and U+2028/U+2029 are escaped so the output
// is also safe inside JavaScript.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendInt appends v in decimal.
func AppendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// AppendFloat writes a finite float so that it still reads as a float
// (1.0, not 1); NaN and infinities have no JSON form and are written as
// null.
func AppendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' {
			return b
		}
	}
	return append(b, '.', '0')
}

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
