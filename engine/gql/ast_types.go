package gql

import "strings"

// Value types as a query writes them: in a type predicate (x IS ::
// INTEGER NOT NULL) and in CAST(x AS FLOAT). The parser reads every
// synonym the ISO GQL standard and Cypher 5 give a type (INT64, SIGNED
// INTEGER, FLOAT64, DOUBLE, VARCHAR, TIMESTAMP WITH TIME ZONE, T ARRAY,
// …) and keeps the one canonical name, so that the binder, EXPLAIN and
// a printed statement see one spelling.

// The canonical type names.
const (
	TypeAny           = "ANY"
	TypeNothing       = "NOTHING"
	TypeNull          = "NULL"
	TypeBoolean       = "BOOLEAN"
	TypeInteger       = "INTEGER"
	TypeInt32         = "INT32"
	TypeInt16         = "INT16"
	TypeInt8          = "INT8"
	TypeFloat         = "FLOAT"
	TypeFloat32       = "FLOAT32"
	TypeString        = "STRING"
	TypeDate          = "DATE"
	TypeLocalTime     = "LOCAL TIME"
	TypeZonedTime     = "ZONED TIME"
	TypeLocalDateTime = "LOCAL DATETIME"
	TypeZonedDateTime = "ZONED DATETIME"
	TypeDuration      = "DURATION"
	TypeList          = "LIST"
	TypeMap           = "MAP"
	TypeNode          = "NODE"
	TypeRelationship  = "RELATIONSHIP"
	TypePath          = "PATH"
)

// TypeRef is a value type: a named type, LIST<Elem>, or a closed union
// of Alts (INTEGER | STRING), whose Name is empty. NotNull excludes the
// null value, which every other type holds.
type TypeRef struct {
	Pos     Pos
	Name    string
	Elem    *TypeRef
	Alts    []*TypeRef
	NotNull bool
}

// String is the type's canonical text, which parses back to the same
// type: LIST<INTEGER | STRING> NOT NULL.
func (t *TypeRef) String() string {
	var sb strings.Builder
	t.format(&sb)
	return sb.String()
}

func (t *TypeRef) format(sb *strings.Builder) {
	if t.Alts != nil {
		for i, a := range t.Alts {
			if i > 0 {
				sb.WriteString(" | ")
			}
			a.format(sb)
		}
		return
	}
	sb.WriteString(t.Name)
	if t.Elem != nil {
		sb.WriteByte('<')
		t.Elem.format(sb)
		sb.WriteByte('>')
	}
	if t.NotNull {
		sb.WriteString(" NOT NULL")
	}
}

type (
	// TypePredicate is X IS [NOT] :: Type (also IS [NOT] TYPED Type and
	// Cypher 5's X :: Type): whether X's value is of the type. It is
	// never null.
	TypePredicate struct {
		Pos  Pos
		X    Expr
		Not  bool
		Type *TypeRef
	}
	// Cast is CAST(X AS Type), GQL's conversion between scalar types,
	// which fails where toInteger() and its kin give null.
	Cast struct {
		Pos  Pos
		X    Expr
		Type *TypeRef
	}
)

func (e *TypePredicate) Position() Pos { return e.Pos }
func (e *Cast) Position() Pos          { return e.Pos }

// formatTypes prints the type expressions (format_expr.go).
func formatTypes(sb *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *TypePredicate:
		sb.WriteByte('(')
		formatExpr(sb, x.X)
		if x.Not {
			sb.WriteString(" IS NOT :: ")
		} else {
			sb.WriteString(" IS :: ")
		}
		x.Type.format(sb)
		sb.WriteByte(')')
	case *Cast:
		sb.WriteString("CAST(")
		formatExpr(sb, x.X)
		sb.WriteString(" AS ")
		x.Type.format(sb)
		sb.WriteByte(')')
	}
}
