package functions

import (
	"math"
	"strings"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// Value types as type predicates (x IS :: INTEGER NOT NULL) and CAST
// name them. The parser (engine/gql) reads every synonym and keeps a
// canonical text, LIST<INTEGER | STRING> NOT NULL; the binder hands that
// text to the operator functions OpIsType and OpCast as a constant, and
// ParseValueType compiles it once per query into a ValueType: a set of
// type tags every value of which belongs to the type, and the few tags
// whose values need a look (a narrow INTEGER's range, a list's
// elements).

// Tag is a value's dynamic type, as a type predicate tells them apart.
type Tag uint8

// The tags.
const (
	TagNull Tag = iota
	TagBool
	TagInt
	TagFloat
	TagString
	TagDate
	TagLocalTime
	TagZonedTime
	TagLocalDateTime
	TagZonedDateTime
	TagDuration
	TagList
	TagMap
	TagNode
	TagRel
	TagPath
	numTags
)

// TagOf is v's tag.
func TagOf(v vector.Value) Tag {
	switch v.(type) {
	case nil:
		return TagNull
	case bool:
		return TagBool
	case int64:
		return TagInt
	case float64:
		return TagFloat
	case string:
		return TagString
	case []vector.Value:
		return TagList
	case map[string]vector.Value:
		return TagMap
	case vector.NodeRef:
		return TagNode
	case vector.RelRef:
		return TagRel
	case vector.Path:
		return TagPath
	case temporal.Date:
		return TagDate
	case temporal.LocalTime:
		return TagLocalTime
	case temporal.Time:
		return TagZonedTime
	case temporal.LocalDateTime:
		return TagLocalDateTime
	case temporal.DateTime:
		return TagZonedDateTime
	case temporal.Duration:
		return TagDuration
	}
	return numTags
}

// VectorTag is the tag of every valid row of a typed vector of type t;
// ok is false for Any, whose rows have tags of their own.
func VectorTag(t vector.Type) (tag Tag, ok bool) {
	switch t {
	case vector.Bool:
		return TagBool, true
	case vector.Int64:
		return TagInt, true
	case vector.Float64:
		return TagFloat, true
	case vector.String:
		return TagString, true
	case vector.Node:
		return TagNode, true
	case vector.Rel:
		return TagRel, true
	}
	return 0, false
}

// namedTags are the tags of the canonical names of one tag.
var namedTags = map[string]Tag{
	"BOOLEAN": TagBool, "INTEGER": TagInt, "FLOAT": TagFloat, "STRING": TagString,
	"DATE": TagDate, "LOCAL TIME": TagLocalTime, "ZONED TIME": TagZonedTime,
	"LOCAL DATETIME": TagLocalDateTime, "ZONED DATETIME": TagZonedDateTime, "DURATION": TagDuration,
	"MAP": TagMap, "NODE": TagNode, "RELATIONSHIP": TagRel, "PATH": TagPath,
}

// intBits are the narrow INTEGER types: INTEGER values within the range
// of so many bits.
var intBits = map[string]uint8{"INT32": 32, "INT16": 16, "INT8": 8}

// ValueType is a compiled value type: a named type, a LIST of one, or a
// closed union of them.
type ValueType struct {
	// Text is the canonical text the type was compiled from.
	Text string
	// Null is whether the null value belongs to the type.
	Null bool
	// Tags is the set (bit 1<<tag) of tags all of whose values belong.
	Tags uint32
	// IntBits, when not 0, admits the INTEGER values within that many
	// bits (INT32, INT16, INT8) where Tags does not admit them all.
	IntBits uint8
	// Float32 admits the FLOAT values within FLOAT32's range.
	Float32 bool
	// Lists are the element types of LIST alternatives: a list belongs
	// when all its elements belong to one of them.
	Lists []*ValueType
	// Target is what CAST converts to: the one alternative's tag, or
	// numTags for ANY, NOTHING and NULL; Elem is a LIST's element type.
	Target Tag
	Elem   *ValueType
	// NotNull is the one alternative's NOT NULL.
	NotNull bool
	// Union is set when the type has more than one alternative.
	Union bool
}

// Has reports whether every value of tag belongs to the type.
func (t *ValueType) Has(tag Tag) bool { return t.Tags&(1<<tag) != 0 }

// Checked reports whether values of tag need a look of their own
// (Matches) to tell whether they belong.
func (t *ValueType) Checked(tag Tag) bool {
	switch tag {
	case TagInt:
		return t.IntBits != 0
	case TagFloat:
		return t.Float32
	case TagList:
		return len(t.Lists) > 0
	}
	return false
}

// Matches reports whether v belongs to the type.
func (t *ValueType) Matches(v vector.Value) bool {
	tag := TagOf(v)
	switch {
	case tag == TagNull:
		return t.Null
	case tag == numTags:
		return false
	case t.Has(tag):
		return true
	case tag == TagInt:
		return t.IntBits != 0 && IntFits(v.(int64), t.IntBits)
	case tag == TagFloat:
		return t.Float32 && Float32Fits(v.(float64))
	case tag == TagList:
		return t.listMatches(v.([]vector.Value))
	}
	return false
}

func (t *ValueType) listMatches(l []vector.Value) bool {
	for _, et := range t.Lists {
		all := true
		for _, e := range l {
			if !et.Matches(e) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// IntFits reports whether v is within the range of a bits-bit integer.
func IntFits(v int64, bits uint8) bool {
	lim := int64(1) << (bits - 1)
	return v >= -lim && v < lim
}

// Float32Fits reports whether f is within FLOAT32's range (infinities
// and NaN included: FLOAT32 has them too).
func Float32Fits(f float64) bool {
	return math.Abs(f) <= math.MaxFloat32 || math.IsInf(f, 0) || math.IsNaN(f)
}

// ParseValueType compiles a canonical type text (gql.TypeRef.String()).
// ok is false for a text the parser does not print.
func ParseValueType(text string) (t *ValueType, ok bool) {
	r := strings.NewReplacer("<", " < ", ">", " > ", "|", " | ")
	tp := &typeText{words: strings.Fields(r.Replace(text))}
	t, ok = tp.union(0)
	if !ok || tp.i != len(tp.words) {
		return nil, false
	}
	t.Text = text
	return t, true
}

// typeText reads canonical type text a word at a time.
type typeText struct {
	words []string
	i     int
}

func (p *typeText) peek() string {
	if p.i < len(p.words) {
		return p.words[p.i]
	}
	return ""
}

// maxTypeDepth bounds LIST<LIST<…>>: the parser's own depth limit
// already does, this keeps the compiler safe on its own.
const maxTypeDepth = 1100

func (p *typeText) union(depth int) (*ValueType, bool) {
	if depth > maxTypeDepth {
		return nil, false
	}
	t := &ValueType{Target: numTags}
	n := 0
	for {
		if !p.alt(t, depth) {
			return nil, false
		}
		n++
		if p.peek() != "|" {
			break
		}
		p.i++
	}
	t.Union = n > 1
	return t, true
}

// alt reads one alternative into t.
func (p *typeText) alt(t *ValueType, depth int) bool {
	start := p.i
	for w := p.peek(); w != "" && w != "<" && w != ">" && w != "|" && w != "NOT"; w = p.peek() {
		p.i++
	}
	name := strings.Join(p.words[start:p.i], " ")
	var elem *ValueType
	if name == "LIST" {
		if p.peek() != "<" {
			return false
		}
		p.i++
		var ok bool
		if elem, ok = p.union(depth + 1); !ok || p.peek() != ">" {
			return false
		}
		p.i++
	}
	notNull := false
	if p.peek() == "NOT" {
		if p.i+1 >= len(p.words) || p.words[p.i+1] != "NULL" {
			return false
		}
		p.i += 2
		notNull = true
	}
	t.NotNull, t.Elem = notNull, elem
	nullable := !notNull
	switch {
	case name == "ANY":
		t.Tags |= 1<<numTags - 1
		t.Tags &^= 1 << TagNull
	case name == "NOTHING":
		nullable = false
	case name == "NULL":
	case name == "LIST":
		t.Target = TagList
		if elem.Null && elem.Tags == 1<<numTags-1&^(1<<TagNull) {
			t.Tags |= 1 << TagList // LIST<ANY>: every list
		} else {
			t.Lists = append(t.Lists, elem)
		}
	case intBits[name] != 0:
		t.Target = TagInt
		t.IntBits = max(t.IntBits, intBits[name])
	case name == "FLOAT32":
		t.Target = TagFloat
		t.Float32 = true
	default:
		tag, ok := namedTags[name]
		if !ok {
			return false
		}
		t.Target = tag
		t.Tags |= 1 << tag
	}
	t.Null = t.Null || nullable
	return true
}
