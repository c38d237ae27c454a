package exec

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// typedColsOp yields typed columns in batches: each column of one type,
// nulls where the value is nil, or of type Any when its values mix.
type typedColsOp struct {
	types []vector.Type
	cols  [][]vector.Value
	pos   int
}

func (s *typedColsOp) Next() (*vector.Batch, error) {
	n := min(len(s.cols[0])-s.pos, vector.Capacity)
	if n == 0 {
		return nil, nil
	}
	b := &vector.Batch{Len: n}
	for c, col := range s.cols {
		v := vector.New(s.types[c], n)
		for i := 0; i < n; i++ {
			x := col[s.pos+i]
			switch {
			case x == nil:
				v.SetNull(i)
			case s.types[c] == vector.Int64:
				v.I64[i] = x.(int64)
			case s.types[c] == vector.String:
				v.Str[i] = x.(string)
			case s.types[c] == vector.Float64:
				v.F64[i] = x.(float64)
			default:
				v.Set(i, x)
			}
		}
		b.Cols = append(b.Cols, v)
	}
	s.pos += n
	return b, nil
}

// TestTypedSortMatchesLess sorts the same rows with the typed sort and
// with the comparison it replaces (rule typed-sort off): every key type,
// nulls, ties, DESC, strings sharing their first 8 bytes, few and many
// distinct strings (ranks or prefixes), a column of mixed types, a column
// of nulls only; sizes under and over the radix and parallel thresholds;
// no limit, a small one (the heap), a large share of the rows (the full
// sort cut), and one past the end.
func TestTypedSortMatchesLess(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 30))
	gen := map[string]func(i int) vector.Value{
		"int":     func(int) vector.Value { return int64(rng.IntN(60)) - 20 },
		"intWide": func(int) vector.Value { return rng.Int64() - math.MaxInt64/2 },
		"intNull": func(int) vector.Value { return maybeNull(rng, int64(rng.IntN(5))) },
		"intEdge": func(int) vector.Value {
			return maybeNull(rng, []int64{math.MaxInt64, math.MinInt64, 0, -1}[rng.IntN(4)])
		},
		"str":     func(int) vector.Value { return fmt.Sprintf("name%02d", rng.IntN(40)) },
		"strLong": func(int) vector.Value { return maybeNull(rng, fmt.Sprintf("sameprefix-%d", rng.IntN(1<<20))) },
		"strNull": func(int) vector.Value {
			return maybeNull(rng, []string{"", "a", "a\x00", "\xff\xff\xff\xff\xff\xff\xff\xff\xff", "b"}[rng.IntN(5)])
		},
		"float": func(int) vector.Value {
			return maybeNull(rng, []float64{math.NaN(), math.Inf(-1), -0.5, 0, 2.25}[rng.IntN(5)])
		},
		"mixed": func(int) vector.Value {
			return maybeNull(rng, []vector.Value{int64(1), "x", 2.5, true, int64(-3)}[rng.IntN(5)])
		},
		"nullOnly": func(int) vector.Value { return nil },
	}
	types := map[string]vector.Type{"int": vector.Int64, "intWide": vector.Int64, "intNull": vector.Int64, "intEdge": vector.Int64,
		"str": vector.String, "strLong": vector.String, "strNull": vector.String, "float": vector.Float64, "mixed": vector.Any, "nullOnly": vector.Any}
	shapes := [][]string{{"int"}, {"intWide"}, {"int", "intWide"}, {"intEdge", "str"}, {"intNull", "str"}, {"intEdge"}, {"str"}, {"strLong"}, {"strNull", "intNull"},
		{"float", "int"}, {"mixed", "int"}, {"nullOnly", "str"}, {"str", "int", "intWide"}}
	for _, shape := range shapes {
		for _, n := range []int{1, 300, 5000, 70000} {
			if n > 5000 && raceBuild { // the detector sees the two workers at 5000 rows already
				continue
			}
			cols := make([][]vector.Value, len(shape))
			tys := make([]vector.Type, len(shape))
			for c, g := range shape {
				cols[c] = make([]vector.Value, n)
				for i := range n {
					cols[c][i] = gen[g](i)
				}
				tys[c] = types[g]
			}
			for d := 0; d < 2; d++ {
				keys := make([]plan.SortKey, len(shape))
				for c := range shape {
					keys[c] = plan.SortKey{Col: c, Desc: (c+d)%2 == 1}
				}
				limits := []int64{-1, 7, int64(n / 2), int64(n + 5)}
				if n > 5000 { // a full sort and a small top-k: the others are the smaller sizes'
					limits = limits[:2]
				}
				for _, limit := range limits {
					name := fmt.Sprintf("%v/n=%d/desc=%d/limit=%d", shape, n, d, limit)
					want := sortedRows(t, false, keys, limit, tys, cols)
					got := sortedRows(t, true, keys, limit, tys, cols)
					if len(got) != len(want) {
						t.Fatalf("%s: %d rows, want %d", name, len(got), len(want))
					}
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("%s: row %d = %s, want %s", name, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

func maybeNull[T any](rng *rand.Rand, v T) vector.Value {
	if rng.IntN(8) == 0 {
		return nil
	}
	return v
}

// sortedRows runs a Sort over the columns, typed or not, on two workers,
// and prints its rows with their input row number (the last column).
func sortedRows(t *testing.T, typed bool, keys []plan.SortKey, limit int64, tys []vector.Type, cols [][]vector.Value) []string {
	t.Helper()
	n := len(cols[0])
	row := make([]vector.Value, n)
	for i := range row {
		row[i] = int64(i)
	}
	p := &plan.Sort{Keys: keys}
	if limit >= 0 {
		p.Limit = &plan.Const{Val: limit, T: vector.Int64}
		plan.Choose(p, plan.RuleTopKSort)
	}
	if typed {
		plan.Choose(p, plan.RuleTypedSort)
	}
	c := &Context{Env: expr.Env{Ctx: context.Background()}, Parallelism: 2}
	s, err := newSort(c, p, &typedColsOp{types: append(tys[:len(tys):len(tys)], vector.Int64), cols: append(cols[:len(cols):len(cols)], row)})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		b, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return out
		}
		for i := 0; i < b.Rows(); i++ {
			r := b.Row(i)
			var line string
			for _, v := range b.Cols {
				line += fmt.Sprintf("%#v ", v.Get(r))
			}
			out = append(out, line)
		}
	}
}
