package arrowio

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// The property: any batches of the column kinds a result has (typed
// vectors with nulls and selections, generic values mixed, null-heavy
// and nested), written as a stream and read back by arrow-go's reader,
// give every value as the JSON encoder writes it.

// genValue is a random generic value nested up to depth levels.
func genValue(r *rand.Rand, depth int) vector.Value {
	switch k := r.IntN(14); {
	case k < 3:
		return nil
	case k == 3:
		return r.IntN(2) == 0
	case k == 4:
		return r.Int64() - r.Int64()
	case k == 5:
		return []float64{0.5, -1e300, math.Inf(1), math.NaN(), 3, r.Float64()}[r.IntN(6)]
	case k == 6:
		return []string{"", "é", "a\"b\\", "\x00", "long string of text"}[r.IntN(5)]
	case k == 7:
		return temporal.Date{Days: r.Int64N(2_000_000) - 1_000_000}
	case k == 8:
		return temporal.LocalTime{Nanos: r.Int64N(temporal.NanosPerDay)}
	case k == 9:
		return temporal.Time{Nanos: r.Int64N(temporal.NanosPerDay), Offset: int32(r.IntN(36000) - 18000)}
	case k == 10:
		if r.IntN(2) == 0 {
			return temporal.LocalDateTime{Sec: r.Int64N(8e9) - 4e9, Nanos: int32(r.IntN(1e9))}
		}
		zone := ""
		if r.IntN(2) == 0 {
			zone = "Europe/Stockholm"
		}
		return temporal.DateTime{Sec: r.Int64N(8e9) - 4e9, Nanos: int32(r.IntN(1e9)), Offset: 3600, Zone: zone}
	case k == 11:
		return temporal.NewDuration(r.Int64N(200)-100, r.Int64N(400)-200, r.Int64N(1e6)-5e5, r.Int64N(1e9))
	case k == 12 && depth > 0:
		l := make([]vector.Value, r.IntN(4))
		for i := range l {
			l[i] = genValue(r, depth-1)
		}
		return l
	case depth > 0:
		m := map[string]vector.Value{}
		for i := r.IntN(4); i > 0; i-- {
			m[fmt.Sprint("k", r.IntN(5))] = genValue(r, depth-1)
		}
		return m
	}
	return int64(7)
}

// genColumn makes a column of one of the result's kinds over n rows.
func genColumn(r *rand.Rand, n int) (engine.Column, *vector.Vector) {
	nullRate := []float64{0, 0.1, 0.9, 1}[r.IntN(4)]
	kinds := []string{"INTEGER", "FLOAT", "BOOLEAN", "STRING", "NULL", "ANY", "LIST", "MAP", "DATE", "DATETIME", "DURATION", "TIME", "LOCALTIME", "LOCALDATETIME",
		"ANY scalars", "LIST scalars", "LIST BOOLEAN", "LIST INTEGER", "LIST FLOAT", "LIST STRING"}
	typ := kinds[r.IntN(len(kinds))]
	var v *vector.Vector
	elem := ""
	switch typ {
	case "LIST BOOLEAN", "LIST INTEGER", "LIST FLOAT", "LIST STRING": // typed lists (lists.go)
		elem = strings.Fields(typ)[1]
		v = vector.New(vector.Any, n)
		for i := range v.Any {
			l := make([]vector.Value, r.IntN(6))
			for j := range l {
				l[j] = genElem(r, elem)
			}
			v.Any[i] = l
		}
		typ = "LIST"
	case "ANY scalars", "LIST scalars": // the union's own fast path (union.go)
		v = vector.New(vector.Any, n)
		for i := range v.Any {
			if typ == "ANY scalars" {
				v.Any[i] = genScalar(r)
				continue
			}
			l := make([]vector.Value, r.IntN(5))
			for j := range l {
				l[j] = genScalar(r)
			}
			v.Any[i] = l
		}
		typ = strings.Fields(typ)[0]
	case "INTEGER":
		v = vector.New(vector.Int64, n)
		for i := range v.I64 {
			v.I64[i] = r.Int64() - r.Int64()
		}
	case "FLOAT":
		v = vector.New(vector.Float64, n)
		for i := range v.F64 {
			v.F64[i] = r.NormFloat64() * 1e6
		}
	case "BOOLEAN":
		v = vector.New(vector.Bool, n)
		for i := range v.Bools {
			v.Bools[i] = r.IntN(2) == 0
		}
	case "STRING":
		v = vector.New(vector.String, n)
		for i := range v.Str {
			v.Str[i] = fmt.Sprint("s", r.IntN(1000))
		}
	case "NULL":
		return engine.Column{Name: "c", Type: typ}, vector.New(vector.Null, n)
	default:
		v = vector.New(vector.Any, n)
		for i := range v.Any {
			v.Any[i] = genOf(r, typ)
		}
	}
	for i := 0; i < n; i++ {
		if r.Float64() < nullRate {
			v.SetNull(i)
		}
	}
	return engine.Column{Name: "c", Type: typ, Elem: elem}, v
}

// genElem is an element of a typed list: null or a value of type elem.
func genElem(r *rand.Rand, elem string) vector.Value {
	if r.IntN(5) == 0 {
		return nil
	}
	switch elem {
	case "BOOLEAN":
		return r.IntN(2) == 0
	case "INTEGER":
		return r.Int64() - r.Int64()
	case "FLOAT":
		return []float64{0.5, -1e300, math.Inf(1), math.NaN(), r.NormFloat64()}[r.IntN(5)]
	}
	return []string{"", "é", "a\"b", "text"}[r.IntN(4)]
}

// genOf is a value of a generic column's declared type.
func genOf(r *rand.Rand, typ string) vector.Value {
	for {
		v := genValue(r, 3)
		switch typ {
		case "ANY":
			return v
		case "LIST":
			if l, ok := v.([]vector.Value); ok {
				return l
			}
		case "MAP":
			if m, ok := v.(map[string]vector.Value); ok {
				return m
			}
		default:
			if v != nil && temporal.TypeName(v) == typ {
				return v
			}
		}
	}
}

// jsonOf is a value as the JSON result gives it, normalised.
func jsonOf(t *testing.T, v vector.Value) any {
	b := (&jsonio.Encoder{}).AppendValue(nil, v, 0)
	out, err := decodeJSON(string(b))
	if err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return out
}

func checkStream(t *testing.T, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	ncols := 1 + r.IntN(5)
	cols := make([]engine.Column, ncols)
	var buf bytes.Buffer
	var want [][]any // rows
	var w *Writer
	batches := r.IntN(4)
	for bi := 0; bi < batches || w == nil; bi++ {
		n := r.IntN(40)
		b := &vector.Batch{Cols: make([]*vector.Vector, ncols), Len: n}
		if w == nil {
			// The first batch fixes the columns' types, as a result's do.
			for c := range cols {
				cols[c], b.Cols[c] = genColumn(r, n)
				cols[c].Name = fmt.Sprint("c", c)
			}
			w = NewWriter(&buf, cols, nil, []Codec{CodecNone, CodecLZ4, CodecZstd}[r.IntN(3)])
			if bi >= batches {
				break
			}
		} else {
			for c := range cols {
				for {
					col, v := genColumn(r, n)
					if col.Type == cols[c].Type && col.Elem == cols[c].Elem {
						b.Cols[c] = v
						break
					}
				}
			}
		}
		if n > 0 && r.IntN(2) == 0 {
			for i := 0; i < n; i++ {
				if r.IntN(3) > 0 {
					b.Sel = append(b.Sel, int32(i))
				}
			}
			if b.Sel == nil {
				b.Sel = []int32{}
			}
		}
		for i := 0; i < b.Rows(); i++ {
			row := make([]any, ncols)
			for c, v := range b.Cols {
				row[c] = jsonOf(t, v.Get(b.Row(i)))
			}
			want = append(want, row)
		}
		if err := w.Write(b); err != nil {
			t.Fatalf("seed %d: write: %v", seed, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("seed %d: close: %v", seed, err)
	}
	rd, err := ipc.NewReader(&buf)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	defer rd.Release()
	var got [][]any
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, ncols)
			for c, a := range rec.Columns() {
				if row[c], err = JSONValue(a, i); err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
			}
			got = append(got, row)
		}
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("seed %d: read: %v", seed, err)
	}
	if g, wnt := Canonical(toAny(got)), Canonical(toAny(want)); g != wnt {
		t.Fatalf("seed %d: columns %v\ngot  %s\nwant %s", seed, cols, g, wnt)
	}
}

func TestStreamProperty(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 50
	}
	for seed := range uint64(n) {
		checkStream(t, seed)
	}
}

func FuzzStream(f *testing.F) {
	f.Add(uint64(1))
	f.Add(uint64(77))
	f.Fuzz(func(t *testing.T, seed uint64) { checkStream(t, seed) })
}

func toAny(rows [][]any) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r
	}
	return out
}
