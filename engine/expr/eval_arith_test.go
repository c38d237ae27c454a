package expr

import (
	"math"
	"testing"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/vector"
)

// The vectorized integer kernel agrees with the scalar one, including on
// overflow, and ignores garbage in unselected rows; so does the kernel
// against a constant. The values sit on either side of where products
// and sums overflow.
func TestIntKernelMatchesScalar(t *testing.T) {
	vals := []int64{0, 1, -1, 2, -2, 3, 7, -7, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
		1 << 32, -(1 << 31), 3037000499, 3037000500, -3037000499, -3037000500, math.MaxInt64 / 3, math.MinInt64 / 3,
		math.MaxInt64/3 + 1, math.MinInt64/3 - 1, 1 << 62, -(1 << 62)}
	for _, op := range []byte{'+', '-', '*', '/', '%'} {
		for _, x := range vals {
			for _, y := range vals {
				for _, k := range []bool{false, true} {
					l := vector.New(vector.Int64, vector.Capacity)
					r := vector.New(vector.Int64, vector.Capacity)
					l.I64[0], r.I64[0] = x, y
					b := &vector.Batch{Cols: []*vector.Vector{l, r}, Len: 1}
					if vector.Capacity > 1 {
						// An unselected row that would overflow must not matter.
						l.I64[1], r.I64[1] = math.MaxInt64, math.MaxInt64
						b.Len, b.Sel = 2, []int32{0}
					}
					e := &arithEval{c: &Env{}, op: op, l: colEval(0), r: colEval(1)}
					if k {
						e.r = newConstEval(y)
					}
					out, err := e.Eval(b)
					want, werr := functions.ArithInt(op, x, y)
					if (err != nil) != (werr != nil) {
						t.Fatalf("%d %c %d: kernel err %v, scalar err %v", x, op, y, err, werr)
					}
					if err == nil && out.I64[0] != want.(int64) {
						t.Fatalf("%d %c %d: kernel %d, scalar %d", x, op, y, out.I64[0], want)
					}
				}
			}
		}
	}
}

// Against a constant, a batch is checked for overflow as a whole (the
// product by its smallest and largest values): a batch fails exactly
// when one of its rows overflows, whichever row it is, and otherwise
// every row is the scalar's value.
func TestIntConstKernelBatchOverflow(t *testing.T) {
	edges := []int64{0, 1, -1, 3037000499, 3037000500, -3037000500, math.MaxInt64 / 3, math.MaxInt64/3 + 1,
		math.MinInt64 / 3, math.MinInt64/3 - 1, math.MaxInt64, math.MinInt64, 1 << 40, -(1 << 40)}
	seed := uint64(7)
	next := func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed >> 33 }
	for _, k := range []int64{3, -3, 2, 0, -1, 3037000500, math.MinInt64} {
		for trial := range 200 {
			n := 1 + int(next()%64)
			l := vector.New(vector.Int64, vector.Capacity)
			n = min(n, vector.Capacity)
			for i := range n {
				l.I64[i] = int64(next()%2000) - 1000
				if next()%8 == 0 {
					l.I64[i] = edges[next()%uint64(len(edges))]
				}
			}
			b := &vector.Batch{Cols: []*vector.Vector{l}, Len: n}
			e := &arithEval{c: &Env{}, op: '*', l: colEval(0), r: newConstEval(k)}
			out, err := e.Eval(b)
			var werr error
			for i := range n {
				want, err := functions.ArithInt('*', l.I64[i], k)
				if err != nil {
					werr = err
					continue
				}
				if werr == nil && out != nil && out.I64[i] != want.(int64) {
					t.Fatalf("k=%d trial %d row %d: kernel %d, scalar %d", k, trial, i, out.I64[i], want)
				}
			}
			if (err != nil) != (werr != nil) {
				t.Fatalf("k=%d trial %d: kernel err %v, scalar err %v (rows %v)", k, trial, err, werr, l.I64[:n])
			}
		}
	}
}
