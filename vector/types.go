package vector

import "fmt"

// Type tags the physical representation of a Vector. It decides which typed
// slice holds the data.
type Type uint8

const (
	// Null is a vector whose every row is null (the type of a null literal).
	Null Type = iota
	// Bool rows live in Vector.Bools.
	Bool
	// Int64 rows live in Vector.I64.
	Int64
	// Float64 rows live in Vector.F64.
	Float64
	// String rows live in Vector.Str.
	String
	// Node rows are node ids in Vector.IDs.
	Node
	// Rel rows are relationship ids in Vector.IDs.
	Rel
	// Any rows are generic values in Vector.Any (see Value).
	Any
)

var typeNames = [...]string{
	Null: "NULL", Bool: "BOOLEAN", Int64: "INTEGER", Float64: "FLOAT",
	String: "STRING", Node: "NODE", Rel: "RELATIONSHIP", Any: "ANY",
}

// String returns the type name used in result schemas.
func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// Value is a single generic value, as held in an Any vector or passed as a
// query parameter. Its dynamic type is one of: nil, bool, int64, float64,
// string, []Value, map[string]Value, NodeRef, RelRef, Path, or a value of
// package temporal (Date, LocalTime, Time, LocalDateTime, DateTime,
// Duration).
type Value = any

// NodeRef is a node held as a generic value (inside a list, say).
type NodeRef uint64

// RelRef is a relationship held as a generic value.
type RelRef uint64

// Path is an alternating sequence of nodes and relationships:
// len(Nodes) == len(Rels)+1.
type Path struct {
	Nodes []uint64
	Rels  []uint64
}

// TypeOf is the vector type that holds v without boxing: Any for lists,
// maps, paths and anything else without a typed slice.
func TypeOf(v Value) Type {
	switch v.(type) {
	case nil:
		return Null
	case bool:
		return Bool
	case int64:
		return Int64
	case float64:
		return Float64
	case string:
		return String
	case NodeRef:
		return Node
	case RelRef:
		return Rel
	}
	return Any
}
