// Package jsonvalue writes Quiver's values as the JSON text every answer
// gives them (docs/http-api.md, "Values"): lists and maps (keys sorted),
// temporals as their ISO 8601 text, a node as
// {"id":…,"labels":[…],"properties":{…}}, a relationship as
// {"id":…,"type":…,"start":…,"end":…,"properties":{…}}, a path as
// {"nodes":[…],"relationships":[…]}. The frontends' results (through
// frontend/jsonio), the Arrow stream's nested values and COPY … TO's
// text columns all write them here, so they cannot drift apart.
package jsonvalue

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/quiverdb/quiver/jsontext"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Entities resolves the nodes and relationships a value refers to (the
// engine's results give them).
type Entities interface {
	NodeLabels(dst []string, id uint64) []string
	NodeProperties(id uint64, fn func(key string, v vector.Value))
	Relationship(id uint64) (typ string, start, end uint64)
	RelationshipProperties(id uint64, fn func(key string, v vector.Value))
}

// Encoder writes values; it reuses its scratch space between calls.
type Encoder struct {
	Ents Entities
	// SortProperties writes an entity's properties with their keys
	// sorted, so that the text does not depend on the storage's order
	// (files); else in the order Ents gives them (answers).
	SortProperties bool

	labels []string
	props  []property
}

type property struct {
	key string
	val vector.Value
}

// MaxNesting bounds recursion through nested lists and maps. Values nest
// at most vector.MaxValueDepth levels (the engine refuses deeper ones),
// and collecting them adds a level per aggregation; past twice that a
// value could only come from a bug, and is written as null rather than
// overflowing the stack.
const MaxNesting = 2 * vector.MaxValueDepth

// AppendValue writes a value nested depth levels deep.
func (e *Encoder) AppendValue(b []byte, v vector.Value, depth int) []byte {
	if depth > MaxNesting {
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
			b = jsontext.AppendString(b, k)
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
		// Temporal values travel as their ISO 8601 strings; a result's
		// schema tells them apart from strings.
		return jsontext.AppendString(b, x.(fmt.Stringer).String())
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
		b = jsontext.AppendString(b, l)
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
	b = jsontext.AppendString(b, typ)
	b = append(b, `,"start":`...)
	b = strconv.AppendUint(b, start, 10)
	b = append(b, `,"end":`...)
	b = strconv.AppendUint(b, end, 10)
	b = append(b, `,"properties":`...)
	b = e.appendProps(b, func(fn func(string, vector.Value)) { e.Ents.RelationshipProperties(id, fn) })
	return append(b, '}')
}

// appendProps writes an entity's properties as one object. A property
// value is written one level deep: an entity's values are stored ones,
// never entities themselves.
func (e *Encoder) appendProps(b []byte, each func(func(string, vector.Value))) []byte {
	b = append(b, '{')
	if !e.SortProperties {
		first := true
		each(func(k string, v vector.Value) {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = jsontext.AppendString(b, k)
			b = append(b, ':')
			b = e.AppendValue(b, v, 1)
		})
		return append(b, '}')
	}
	// The scratch is taken for this entity: writing a value never
	// reaches another entity's properties (stored values hold none).
	ps := e.props[:0]
	each(func(k string, v vector.Value) { ps = append(ps, property{k, v}) })
	sort.Slice(ps, func(i, j int) bool { return ps[i].key < ps[j].key })
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, p.key)
		b = append(b, ':')
		b = e.AppendValue(b, p.val, 1)
	}
	e.props = ps[:0]
	return append(b, '}')
}
