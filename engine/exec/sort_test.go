package exec

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// sliceOp yields fixed rows (column-major values) in batches.
type sliceOp struct {
	cols [][]vector.Value
	pos  int
}

func (s *sliceOp) Next() (*vector.Batch, error) {
	n := min(len(s.cols[0])-s.pos, vector.Capacity)
	if n == 0 {
		return nil, nil
	}
	b := &vector.Batch{Len: n}
	for _, col := range s.cols {
		v := vector.New(vector.Any, n)
		for i := 0; i < n; i++ {
			v.Set(i, col[s.pos+i])
		}
		b.Cols = append(b.Cols, v)
	}
	s.pos += n
	return b, nil
}

// TestSortTopKMatchesFullSort checks every limit, including those that
// make the operator prune its buffer, against a plain stable sort.
func TestSortTopKMatchesFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n = 5000
	a, b := make([]vector.Value, n), make([]vector.Value, n)
	for i := range a {
		if rng.IntN(10) > 0 {
			a[i] = int64(rng.IntN(50))
		}
		b[i] = fmt.Sprint(rng.IntN(1000))
	}
	keys := []plan.SortKey{{Col: 0}, {Col: 1, Desc: true}}
	ref := make([]int, n)
	for i := range ref {
		ref[i] = i
	}
	sort.SliceStable(ref, func(i, j int) bool {
		x, y := ref[i], ref[j]
		if c := functions.OrderTotal(a[x], a[y]); c != 0 {
			return c < 0
		}
		return functions.OrderTotal(b[x], b[y]) > 0
	})
	c := &Context{Env: expr.Env{Ctx: context.Background()}}
	for _, limit := range []int64{0, 1, 7, 100, 4999, 6000} {
		s, err := newSort(c, chosen(&plan.Sort{Keys: keys, Limit: &plan.Const{Val: limit, T: vector.Int64}}), &sliceOp{cols: [][]vector.Value{a, b}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			batch, err := s.Next()
			if err != nil {
				t.Fatal(err)
			}
			if batch == nil {
				break
			}
			for i := 0; i < batch.Rows(); i++ {
				r := batch.Row(i)
				got = append(got, fmt.Sprint(batch.Cols[0].Get(r), batch.Cols[1].Get(r)))
			}
		}
		want := min(int(limit), n)
		if len(got) != want {
			t.Fatalf("limit %d: %d rows", limit, len(got))
		}
		for i := range got {
			if w := fmt.Sprint(a[ref[i]], b[ref[i]]); got[i] != w {
				t.Fatalf("limit %d: row %d = %s, want %s", limit, i, got[i], w)
			}
		}
	}
}
