package load

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/vector"
)

// kind is a CSV column's declared or inferred type.
type kind uint8

const (
	kindInfer kind = iota
	kindInt
	kindFloat
	kindString
	kindBool
	kindDate
	// Parquet timestamps and times of day (no CSV header names them).
	kindDateTime
	kindLocalDateTime
	kindLocalTime
	// A Parquet LIST of scalars (parquet_list.go).
	kindList
	// A TIME with its offset and a DURATION, from typed text columns
	// (parquet_text.go).
	kindTime
	kindDuration
)

var kindNames = map[string]kind{
	"INT64": kindInt, "INT": kindInt, "INTEGER": kindInt, "INT32": kindInt, "LONG": kindInt,
	"DOUBLE": kindFloat, "FLOAT": kindFloat, "FLOAT64": kindFloat,
	"STRING": kindString, "TEXT": kindString,
	"BOOLEAN": kindBool, "BOOL": kindBool,
	"DATE": kindDate,
	// The other temporal types, as their text (quiver export writes CSV
	// with them): parsed by parseTemporal.
	"DATETIME": kindDateTime, "ZONED_DATETIME": kindDateTime,
	"LOCALDATETIME": kindLocalDateTime, "LOCAL_DATETIME": kindLocalDateTime,
	"LOCALTIME": kindLocalTime, "LOCAL_TIME": kindLocalTime,
	"TIME": kindTime, "ZONED_TIME": kindTime,
	"DURATION": kindDuration,
	// GQL's names of the same types (not its TIME, which is a LOCAL TIME
	// in GQL but a zoned TIME in Cypher and in the header above).
	"INTEGER64": kindInt, "BIGINT": kindInt, "SIGNED INTEGER": kindInt,
	"REAL": kindFloat, "DOUBLE PRECISION": kindFloat,
	"VARCHAR": kindString, "CHAR": kindString,
	"ZONED DATETIME": kindDateTime, "TIMESTAMP WITH TIME ZONE": kindDateTime,
	"LOCAL DATETIME": kindLocalDateTime, "TIMESTAMP WITHOUT TIME ZONE": kindLocalDateTime,
	"LOCAL TIME": kindLocalTime, "TIME WITHOUT TIME ZONE": kindLocalTime,
	"ZONED TIME": kindTime, "TIME WITH TIME ZONE": kindTime,
}

func (k kind) String() string {
	switch k {
	case kindInt:
		return "INT64"
	case kindFloat:
		return "DOUBLE"
	case kindString:
		return "STRING"
	case kindBool:
		return "BOOLEAN"
	case kindDate:
		return "DATE"
	case kindDateTime:
		return "DATETIME"
	case kindLocalDateTime:
		return "LOCALDATETIME"
	case kindLocalTime:
		return "LOCALTIME"
	case kindList:
		return "LIST"
	case kindTime:
		return "TIME"
	case kindDuration:
		return "DURATION"
	}
	return "inferred"
}

func (k kind) vectorType() vector.Type {
	switch k {
	case kindInt:
		return vector.Int64
	case kindFloat:
		return vector.Float64
	case kindBool:
		return vector.Bool
	case kindDate, kindDateTime, kindLocalDateTime, kindLocalTime, kindList, kindTime, kindDuration:
		return vector.Any
	}
	return vector.String
}

// role is what a column means to the loader.
type role uint8

const (
	roleProp role = iota
	roleKey       // a node file's key column (also stored as a property)
	roleFrom      // a relationship file's start node key
	roleTo        // a relationship file's end node key
)

type colSpec struct {
	name string
	kind kind
	role role
}

// parseHeader reads the header fields: `name` or `name:TYPE`. Key and
// endpoint columns are found by name.
func parseHeader(file string, fields []string, keyCol, fromCol, toCol string, rels bool) ([]colSpec, error) {
	cols := make([]colSpec, len(fields))
	seen := map[string]bool{}
	for i, f := range fields {
		name, typ, typed := strings.Cut(strings.TrimSpace(f), ":")
		name = strings.TrimSpace(name)
		c := colSpec{name: name}
		if typed {
			k, ok := kindNames[strings.ToUpper(strings.TrimSpace(typ))]
			if !ok {
				return nil, &Error{File: file, Line: 1, Column: i + 1, Name: name,
					Msg: fmt.Sprintf("unknown type %q (INT64, DOUBLE, STRING, BOOLEAN, DATE, DATETIME, LOCALDATETIME, LOCALTIME, TIME or DURATION)", typ)}
			}
			c.kind = k
		}
		if name == "" {
			return nil, &Error{File: file, Line: 1, Column: i + 1, Msg: "empty column name"}
		}
		if seen[name] {
			return nil, &Error{File: file, Line: 1, Column: i + 1, Name: name, Msg: "column named twice"}
		}
		seen[name] = true
		switch {
		case !rels && name == keyCol:
			c.role = roleKey
		case rels && name == fromCol:
			c.role = roleFrom
		case rels && name == toCol:
			c.role = roleTo
		}
		cols[i] = c
	}
	need := []string{keyCol}
	if rels {
		need = []string{fromCol, toCol}
	}
	for _, n := range need {
		if !seen[n] {
			return nil, &Error{File: file, Line: 1, Msg: fmt.Sprintf("no %q column in the header %q", n, strings.Join(fields, ","))}
		}
	}
	return cols, nil
}

// Error is a bad input: file, 1-based line and column (0 when the error
// is about the whole line or file), the column's name, and what is wrong.
// In a Parquet file (Rows set) Line is the 1-based row of the file and
// RowGroup the 0-based row group holding it.
type Error struct {
	File     string
	Line     int
	Column   int
	Name     string
	Msg      string
	Rows     bool
	RowGroup int
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Rows {
		if e.Line > 0 {
			fmt.Fprintf(&b, ": row %d (row group %d)", e.Line, e.RowGroup)
		}
	} else if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	if e.Name != "" {
		fmt.Fprintf(&b, " (column %s)", e.Name)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}
