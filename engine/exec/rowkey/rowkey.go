// Package rowkey encodes rows as byte keys: grouping and DISTINCT hash
// rows by a byte encoding of their values, appended into one reusable
// buffer per batch so that looking up an existing group allocates nothing.
// Each value starts with a tag byte, so values of different types never
// collide; strings carry their length.
package rowkey

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagNode
	tagRel
	tagList
	tagMap
	tagPath
	tagTemporal
)

// Append appends the key encoding of row r of v.
func Append(dst []byte, v *vector.Vector, r int) []byte {
	if v.IsNull(r) {
		return append(dst, tagNull)
	}
	switch v.Type {
	case vector.Bool:
		if v.Bools[r] {
			return append(dst, tagTrue)
		}
		return append(dst, tagFalse)
	case vector.Int64:
		return binary.LittleEndian.AppendUint64(append(dst, tagInt), uint64(v.I64[r]))
	case vector.Float64:
		return appendFloat(dst, v.F64[r])
	case vector.String:
		return appendString(dst, v.Str[r])
	case vector.Node:
		return binary.LittleEndian.AppendUint64(append(dst, tagNode), v.IDs[r])
	case vector.Rel:
		return binary.LittleEndian.AppendUint64(append(dst, tagRel), v.IDs[r])
	case vector.Any:
		return AppendValue(dst, v.Any[r])
	}
	return append(dst, tagNull)
}

// appendFloat normalises -0 to 0 and all NaNs to one NaN, so values that
// group together encode alike.
func appendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		f = 0
	}
	if math.IsNaN(f) {
		f = math.NaN()
	}
	return binary.LittleEndian.AppendUint64(append(dst, tagFloat), math.Float64bits(f))
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(append(dst, tagString), uint64(len(s)))
	return append(dst, s...)
}

// AppendValue encodes a generic value (the slow path).
func AppendValue(dst []byte, v vector.Value) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, tagNull)
	case bool:
		if x {
			return append(dst, tagTrue)
		}
		return append(dst, tagFalse)
	case int64:
		return binary.LittleEndian.AppendUint64(append(dst, tagInt), uint64(x))
	case float64:
		return appendFloat(dst, x)
	case string:
		return appendString(dst, x)
	case vector.NodeRef:
		return binary.LittleEndian.AppendUint64(append(dst, tagNode), uint64(x))
	case vector.RelRef:
		return binary.LittleEndian.AppendUint64(append(dst, tagRel), uint64(x))
	case []vector.Value:
		dst = binary.AppendUvarint(append(dst, tagList), uint64(len(x)))
		for _, e := range x {
			dst = AppendValue(dst, e)
		}
		return dst
	case map[string]vector.Value:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		dst = binary.AppendUvarint(append(dst, tagMap), uint64(len(keys)))
		for _, k := range keys {
			dst = appendString(dst, k)
			dst = AppendValue(dst, x[k])
		}
		return dst
	case vector.Path:
		dst = binary.AppendUvarint(append(dst, tagPath), uint64(len(x.Nodes)))
		for _, n := range x.Nodes {
			dst = binary.LittleEndian.AppendUint64(dst, n)
		}
		for _, r := range x.Rels {
			dst = binary.LittleEndian.AppendUint64(dst, r)
		}
		return dst
	}
	if temporal.Is(v) {
		return appendTemporal(dst, v)
	}
	return append(dst, tagNull)
}

// appendTemporal encodes a temporal value exactly: values that render
// differently (the same instant at two offsets) are different keys.
func appendTemporal(dst []byte, v vector.Value) []byte {
	dst = append(dst, tagTemporal, byte(functions.TemporalRank(v)))
	u := func(x int64) { dst = binary.LittleEndian.AppendUint64(dst, uint64(x)) }
	switch x := v.(type) {
	case temporal.Date:
		u(x.Days)
	case temporal.LocalTime:
		u(x.Nanos)
	case temporal.Time:
		u(x.Nanos)
		u(int64(x.Offset))
	case temporal.LocalDateTime:
		u(x.Sec)
		u(int64(x.Nanos))
	case temporal.DateTime:
		u(x.Sec)
		u(int64(x.Nanos))
		u(int64(x.Offset))
		dst = appendString(dst, x.Zone)
	case temporal.Duration:
		u(x.Months)
		u(x.Days)
		u(x.Seconds)
		u(int64(x.Nanos))
	}
	return dst
}
