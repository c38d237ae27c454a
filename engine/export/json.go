package export

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/quiverdb/quiver/jsontext"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Entities resolves the nodes and relationships in a query's rows (the
// engine's Result gives them): COPY … TO writes them as JSON text.
type Entities interface {
	NodeLabels(dst []string, id uint64) []string
	NodeProperties(id uint64, fn func(key string, v vector.Value))
	Relationship(id uint64) (typ string, start, end uint64)
	RelationshipProperties(id uint64, fn func(key string, v vector.Value))
}

// jsonText writes a value of a query's result as the JSON text the HTTP
// answer gives it (docs/http-api.md): maps with their keys sorted,
// temporals as their ISO 8601 text, a node as
// {"id":…,"labels":[…],"properties":{…}}, a relationship as
// {"id":…,"type":…,"start":…,"end":…,"properties":{…}}, a path as
// {"nodes":[…],"relationships":[…]}.
type jsonText struct {
	ents   Entities
	labels []string
}

// maxJSONDepth bounds the recursion through nested values (the engine
// refuses values nested deeper than vector.MaxValueDepth).
const maxJSONDepth = 2 * vector.MaxValueDepth

func (j *jsonText) append(b []byte, v vector.Value, depth int) []byte {
	if depth > maxJSONDepth {
		return append(b, "null"...)
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int64:
		return jsontext.AppendInt(b, x)
	case float64:
		return jsontext.AppendFloat(b, x)
	case string:
		return jsontext.AppendString(b, x)
	case []vector.Value:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = j.append(b, e, depth+1)
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
			b = jsontext.AppendString(b, k)
			b = append(b, ':')
			b = j.append(b, x[k], depth+1)
		}
		return append(b, '}')
	case vector.NodeRef:
		return j.node(b, uint64(x), depth)
	case vector.RelRef:
		return j.rel(b, uint64(x), depth)
	case vector.Path:
		b = append(b, `{"nodes":[`...)
		for i, n := range x.Nodes {
			if i > 0 {
				b = append(b, ',')
			}
			b = j.node(b, n, depth)
		}
		b = append(b, `],"relationships":[`...)
		for i, r := range x.Rels {
			if i > 0 {
				b = append(b, ',')
			}
			b = j.rel(b, r, depth)
		}
		return append(b, "]}"...)
	case temporal.Date, temporal.LocalTime, temporal.Time, temporal.LocalDateTime, temporal.DateTime, temporal.Duration:
		return jsontext.AppendString(b, x.(fmt.Stringer).String())
	}
	return append(b, "null"...)
}

func (j *jsonText) node(b []byte, id uint64, depth int) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"labels":[`...)
	j.labels = j.ents.NodeLabels(j.labels[:0], id)
	for i, l := range j.labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, l)
	}
	b = append(b, `],"properties":`...)
	b = j.props(b, depth, func(fn func(string, vector.Value)) { j.ents.NodeProperties(id, fn) })
	return append(b, '}')
}

func (j *jsonText) rel(b []byte, id uint64, depth int) []byte {
	typ, start, end := j.ents.Relationship(id)
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"type":`...)
	b = jsontext.AppendString(b, typ)
	b = append(b, `,"start":`...)
	b = strconv.AppendUint(b, start, 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendUint(b, end, 10)
	b = append(b, `,"properties":`...)
	b = j.props(b, depth, func(fn func(string, vector.Value)) { j.ents.RelationshipProperties(id, fn) })
	return append(b, '}')
}

// props writes an entity's properties as one object, keys sorted so that
// the text does not depend on the storage's order.
func (j *jsonText) props(b []byte, depth int, each func(func(string, vector.Value))) []byte {
	m := map[string]vector.Value{}
	each(func(k string, v vector.Value) { m[k] = v })
	return j.append(b, m, depth+1)
}
