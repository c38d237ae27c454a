package load

// Typed text columns: Parquet has no type for a DATETIME in a zone other
// than UTC, nor for a TIME with its offset. `quiver export` writes such
// a column as strings, its text (2020-01-02T03:04:05+01:00[Europe/Paris],
// 12:00:00+02:00), and names it in the file's key-value metadata under
// typesKey, a JSON object from column name to "DATETIME" or "TIME"; the
// loader parses each string back (a LIST column's elements too). Other
// readers see strings.

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// typesKey is the metadata key naming the typed text columns.
const typesKey = "quiver.types"

// textTypes reads the file's typed text columns, by name.
func textTypes(name string, kv metadata.KeyValueMetadata) (map[string]string, error) {
	v := kv.FindValue(typesKey)
	if v == nil {
		return nil, nil
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(*v), &m); err != nil {
		return nil, &Error{File: name, Msg: fmt.Sprintf("the metadata %q is not a JSON object of column types (%v)", typesKey, err)}
	}
	for col, t := range m {
		if t != "DATETIME" && t != "TIME" {
			return nil, &Error{File: name, Name: col, Msg: fmt.Sprintf("the metadata %q gives the type %q: DATETIME or TIME", typesKey, t)}
		}
	}
	return m, nil
}

// parseText parses one string of a typed text column.
func parseText(typ, s string) (vector.Value, string) {
	var v vector.Value
	var err error
	if typ == "TIME" {
		// The text carries its offset: the day given for a zone name
		// without one never matters.
		v, err = temporal.ParseTime(s, time.Unix(0, 0))
	} else {
		v, err = temporal.ParseDateTime(s)
	}
	if err != nil {
		return nil, fmt.Sprintf("%q is not a %s (%v)", s, typ, err)
	}
	return v, ""
}
