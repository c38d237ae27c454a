package storage

import (
	"fmt"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// numTypes sizes the per-type counters of chunks and columns, which are
// indexed by vector.Type (only Bool, Int64, Float64, String and Any are
// ever non-zero: lists and maps count as Any).
const numTypes = int(vector.Any) + 1

// maxValueDepth bounds list/map nesting so a hostile value cannot blow the
// stack of the recursive validator.
const maxValueDepth = 64

// columnType is what NodePropType reports for a column with these
// per-type value counts: Null when empty, the type when homogeneous, Any
// when mixed.
func columnType(counts *[numTypes]int64) vector.Type {
	t := vector.Null
	for i, c := range counts {
		if c == 0 {
			continue
		}
		if t != vector.Null {
			return vector.Any
		}
		t = vector.Type(i)
	}
	return t
}

// storeValue validates a property value and returns a deep copy the store
// may keep: lists and maps are copied so a caller mutating its slice or map
// later cannot change a published snapshot. Allowed dynamic types: nil,
// bool, int64, float64, string, the temporal values of package vector
// (immutable structs, kept as they are), []vector.Value,
// map[string]vector.Value (recursively). Anything else (a NodeRef, a Path, an int) is a 22000
// error.
func storeValue(v vector.Value) (vector.Value, error) {
	return storeValueDepth(v, 0)
}

func storeValueDepth(v vector.Value, depth int) (vector.Value, error) {
	if depth > maxValueDepth {
		return nil, errs.Data("storage: property value nested deeper than %d levels", maxValueDepth)
	}
	switch x := v.(type) {
	case nil, bool, int64, float64, string,
		temporal.Date, temporal.LocalTime, temporal.Time, temporal.LocalDateTime, temporal.DateTime, temporal.Duration:
		return v, nil
	case []vector.Value:
		out := make([]vector.Value, len(x))
		for i, e := range x {
			c, err := storeValueDepth(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]vector.Value:
		out := make(map[string]vector.Value, len(x))
		for k, e := range x {
			c, err := storeValueDepth(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	}
	return nil, errs.Data("storage: a property value cannot be of type %s", dynTypeName(v))
}

func dynTypeName(v vector.Value) string {
	switch v.(type) {
	case vector.NodeRef:
		return "NODE"
	case vector.RelRef:
		return "RELATIONSHIP"
	case vector.Path, *vector.Path:
		return "PATH"
	}
	return fmt.Sprintf("%T", v)
}

// props validates parallel key/value slices for a create and returns the
// stored copies, dropping nil values (setting null means "no property").
// A key given twice keeps its last value, as a map literal would.
func props(keys []catalog.KeyID, vals []vector.Value) ([]catalog.KeyID, []vector.Value, error) {
	if len(keys) != len(vals) {
		return nil, nil, errs.Data("storage: %d property keys but %d values", len(keys), len(vals))
	}
	var ok []catalog.KeyID
	var ov []vector.Value
	for i, k := range keys {
		c, err := storeValue(vals[i])
		if err != nil {
			return nil, nil, err
		}
		dup := -1
		for j, seen := range ok {
			if seen == k {
				dup = j
			}
		}
		if dup >= 0 {
			ok = append(ok[:dup], ok[dup+1:]...)
			ov = append(ov[:dup], ov[dup+1:]...)
		}
		if c == nil {
			continue
		}
		ok = append(ok, k)
		ov = append(ov, c)
	}
	return ok, ov, nil
}
