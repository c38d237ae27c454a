package procs

import "github.com/quiverdb/quiver/vector"

var knownTypes = map[string]bool{
	"ANY": true, "BOOLEAN": true, "INTEGER": true, "FLOAT": true, "NUMBER": true,
	"STRING": true, "LIST": true, "MAP": true, "NODE": true, "RELATIONSHIP": true, "PATH": true,
}

// KnownType reports whether t names a field type.
func KnownType(t string) bool { return knownTypes[t] }

// VectorType is the vector type that holds values of field type t without
// boxing; Any for types without a typed vector (and for NUMBER, whose
// values are integers or floats).
func VectorType(t string) vector.Type {
	switch t {
	case "BOOLEAN":
		return vector.Bool
	case "INTEGER":
		return vector.Int64
	case "FLOAT":
		return vector.Float64
	case "STRING":
		return vector.String
	case "NODE":
		return vector.Node
	case "RELATIONSHIP":
		return vector.Rel
	}
	return vector.Any
}

// Accepts reports whether v (non-null) is a value of field type t. An
// INTEGER is accepted where a FLOAT is expected (Coerce converts it).
func Accepts(t string, v vector.Value) bool {
	switch t {
	case "ANY":
		return true
	case "BOOLEAN":
		_, ok := v.(bool)
		return ok
	case "INTEGER":
		_, ok := v.(int64)
		return ok
	case "FLOAT", "NUMBER":
		switch v.(type) {
		case int64, float64:
			return true
		}
		return false
	case "STRING":
		_, ok := v.(string)
		return ok
	case "LIST":
		_, ok := v.([]vector.Value)
		return ok
	case "MAP":
		_, ok := v.(map[string]vector.Value)
		return ok
	case "NODE":
		_, ok := v.(vector.NodeRef)
		return ok
	case "RELATIONSHIP":
		_, ok := v.(vector.RelRef)
		return ok
	case "PATH":
		_, ok := v.(vector.Path)
		return ok
	}
	return false
}

// Coerce converts an accepted value to the field's representation: an
// INTEGER passed as a FLOAT becomes a float64.
func Coerce(t string, v vector.Value) vector.Value {
	if i, ok := v.(int64); ok && t == "FLOAT" {
		return float64(i)
	}
	return v
}

// StaticAccepts reports whether an expression of static vector type vt
// can produce values of field type t (Any and Null always can).
func StaticAccepts(t string, vt vector.Type) bool {
	switch vt {
	case vector.Any, vector.Null:
		return true
	case vector.Bool:
		return t == "ANY" || t == "BOOLEAN"
	case vector.Int64:
		return t == "ANY" || t == "INTEGER" || t == "FLOAT" || t == "NUMBER"
	case vector.Float64:
		return t == "ANY" || t == "FLOAT" || t == "NUMBER"
	case vector.String:
		return t == "ANY" || t == "STRING"
	case vector.Node:
		return t == "ANY" || t == "NODE"
	case vector.Rel:
		return t == "ANY" || t == "RELATIONSHIP"
	}
	return true
}
