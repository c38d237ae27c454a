//go:build unix

package expr

import (
	"fmt"
	"reflect"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// BenchmarkExpr times the expression families over 1M rows in full
// batches, in ns per row, beside "loop": a plain Go loop doing the
// arithmetic family's x / 10 over an []int64 of the same values, and
// the floors of the string and date families (loop-string, loop-date).
// A string, date or conversion family has its own loop beside it too
// ("<family>.loop", bench_loops_test.go): the same computation in plain
// Go over plain slices.
// `make bench-expr` runs it; bench/RESULTS-expr.md holds a run.
func BenchmarkExpr(b *testing.B) {
	const total = 1 << 20
	cols := benchColumns(total)
	b.Run("loop", func(b *testing.B) {
		x := make([]int64, total)
		out := make([]int64, total)
		for i := range x {
			x[i] = cols.x[i]
		}
		b.ResetTimer()
		cpu0 := cpuNanos()
		for range b.N {
			for i, v := range x {
				out[i] = v / 10
			}
		}
		reportRows(b, cpu0, total)
	})
	// The floors of the string and date families: a plain Go loop that
	// copies each string of s into one buffer, and one that sums the
	// days of d's boxed dates. Each touches its column's values where
	// they lie, scattered over the heap, as any kernel must.
	b.Run("loop-string", func(b *testing.B) {
		buf := make([]byte, 0, 16*total)
		b.ResetTimer()
		cpu0 := cpuNanos()
		for range b.N {
			buf = buf[:0]
			for _, s := range cols.s {
				buf = append(buf, s...)
			}
		}
		reportRows(b, cpu0, total)
	})
	b.Run("loop-date", func(b *testing.B) {
		var sum int64
		cpu0 := cpuNanos()
		for range b.N {
			for _, d := range cols.d {
				sum += d.(temporal.Date).Days
			}
		}
		reportRows(b, cpu0, total)
		if sum == 0 {
			b.Log(sum)
		}
	})
	loops := ownLoops(cols)
	for _, f := range exprFamilies() {
		b.Run(f.name, func(b *testing.B) {
			ev, err := Compile(&Env{}, f.e)
			if err != nil {
				b.Fatal(err)
			}
			batches := cols.batches()
			b.ResetTimer()
			cpu0 := cpuNanos()
			for range b.N {
				for _, bt := range batches {
					if _, err := ev.Eval(bt); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportRows(b, cpu0, total)
		})
		own, ok := loops[f.name]
		if !ok {
			continue
		}
		b.Run(f.name+".loop", func(b *testing.B) {
			checkOwnLoop(b, cols, f, own)
			b.ResetTimer()
			cpu0 := cpuNanos()
			for range b.N {
				own.run()
			}
			reportRows(b, cpu0, total)
		})
	}
}

// cpuNanos is the process's user and system CPU time.
func cpuNanos() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportRows reports the wall time per row of the b.N evaluations of
// rows rows, and the process's CPU time per row since cpu0 (the garbage
// collector's included): on a shared machine the CPU time moves far less
// with the load than the wall time.
func reportRows(b *testing.B, cpu0 int64, rows int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	b.ReportMetric(float64(cpuNanos()-cpu0)/float64(b.N)/float64(rows), "cpu-ns/row")
}

// checkOwnLoop fails b unless own computes what family f does on every
// row of cols.
func checkOwnLoop(b *testing.B, cols *benchCols, f benchFamily, own ownLoop) {
	ev, err := Compile(&Env{}, f.e)
	if err != nil {
		b.Fatal(err)
	}
	own.run()
	at := 0
	for _, bt := range cols.batches() {
		v, err := ev.Eval(bt)
		if err != nil {
			b.Fatal(err)
		}
		for i := range bt.Len {
			if got, want := own.get(at+i), v.Get(i); !reflect.DeepEqual(got, want) {
				b.Fatalf("%s row %d: the own loop gives %#v, the family %#v", f.name, at+i, got, want)
			}
		}
		at += bt.Len
	}
}

type benchFamily struct {
	name string
	e    plan.Expr
}

// The benchmark's columns (see benchColumns).
var (
	bx  = &plan.ColRef{Idx: 0, Name: "x", T: vector.Int64}
	by  = &plan.ColRef{Idx: 1, Name: "y", T: vector.Int64}
	bf  = &plan.ColRef{Idx: 2, Name: "f", T: vector.Float64}
	bs  = &plan.ColRef{Idx: 3, Name: "s", T: vector.String}
	bd  = &plan.ColRef{Idx: 4, Name: "d", T: vector.Any, Kind: "DATE"}
	bb  = &plan.ColRef{Idx: 5, Name: "b", T: vector.Bool}
	bsn = &plan.ColRef{Idx: 6, Name: "sn", T: vector.String}
)

func lit(v vector.Value) *plan.Const { return &plan.Const{Val: v, T: vector.TypeOf(v)} }

func bin(op plan.BinOp, l, r plan.Expr) *plan.Binary { return &plan.Binary{Op: op, L: l, R: r} }

func call(name string, t vector.Type, args ...plan.Expr) *plan.Call {
	return &plan.Call{Name: name, T: t, Args: args}
}

// searchedCase is CASE WHEN w1 THEN t1 … ELSE els END, as the binder
// builds it.
func searchedCase(t vector.Type, els plan.Expr, pairs ...plan.Expr) *plan.Call {
	args := append([]plan.Expr{lit(false), lit(nil)}, pairs...)
	return call(functions.OpCase, t, append(args, els)...)
}

// simpleCase is CASE subject WHEN v1 THEN t1 … ELSE els END.
func simpleCase(t vector.Type, subject, els plan.Expr, pairs ...plan.Expr) *plan.Call {
	args := append([]plan.Expr{lit(true), subject}, pairs...)
	return call(functions.OpCase, t, append(args, els)...)
}

func inList(x plan.Expr, vals ...vector.Value) *plan.Call {
	c := call(functions.OpIn, vector.Bool, x, &plan.Const{Val: vals, T: vector.Any})
	c.Strategy = plan.RuleInSetLookup
	return c
}

func exprFamilies() []benchFamily {
	return []benchFamily{
		{"arith", bin(plan.OpDiv, bx, lit(int64(10)))},
		{"arith-float", bin(plan.OpAdd, bin(plan.OpMul, bx, lit(1.5)), bf)},
		{"arith-nulls", bin(plan.OpSub, bin(plan.OpMul, by, lit(int64(3))), bx)},
		{"compare", bin(plan.OpLt, bx, lit(int64(30)))},
		{"compare-int-float", bin(plan.OpLe, bx, bf)},
		{"logic", bin(plan.OpOr, bin(plan.OpAnd, bin(plan.OpLt, bx, lit(int64(30))), bin(plan.OpGt, by, lit(int64(40)))), &plan.Not{X: bb})},
		{"case", searchedCase(vector.String, lit("old"),
			bin(plan.OpLt, bx, lit(int64(30))), lit("young"),
			bin(plan.OpLt, bx, lit(int64(60))), lit("mid"))},
		{"case-simple", simpleCase(vector.Int64, bin(plan.OpMod, bx, lit(int64(3))), bx,
			lit(int64(0)), lit(int64(100)), lit(int64(1)), by)},
		{"coalesce", call("coalesce", vector.Int64, by, bx)},
		{"in", inList(bx, int64(18), int64(25), int64(33), int64(47), int64(80))},
		{"string-lower", call("tolower", vector.String, bs)},
		{"string-substring", call("substring", vector.String, bs, lit(int64(1)), lit(int64(3)))},
		{"string-left", call("left", vector.String, bs, lit(int64(4)))},
		{"string-trim", call("trim", vector.String, bs)},
		{"string-size", call("size", vector.Int64, bs)},
		{"string-split", call("split", vector.Any, bs, lit("_"))},
		{"string-startswith", call(functions.OpStartsWith, vector.Bool, bs, lit(" Na"))},
		{"temporal-year", &plan.Property{Of: bd, Key: "year"}},
		{"temporal-truncate", &plan.Call{Name: "date.truncate", T: vector.Any, Kind: "DATE", Args: []plan.Expr{lit("month"), bd}}},
		{"temporal-construct", &plan.Call{Name: "date", T: vector.Any, Kind: "DATE", Args: []plan.Expr{&plan.Map{
			Keys: []string{"year", "month", "day"},
			Vals: []plan.Expr{bin(plan.OpAdd, lit(int64(1960)), bx), bin(plan.OpAdd, lit(int64(1)), bin(plan.OpMod, bx, lit(int64(12)))),
				bin(plan.OpAdd, lit(int64(1)), bin(plan.OpMod, bx, lit(int64(28))))}}}}},
		{"convert-tostring", call("tostring", vector.String, bx)},
		{"convert-tointeger", call("tointeger", vector.Int64, bsn)},
		{"convert-tofloat", call("tofloat", vector.Float64, bsn)},
		{"convert-toboolean", call("toboolean", vector.Bool, bx)},
	}
}

// benchCols are the benchmark's columns, whole: x INTEGER 18..80 (an
// age), y INTEGER with a null in ten, f FLOAT, s STRING (padded names,
// some not ASCII), d DATE (generic values), b BOOLEAN with a null in
// seven, sn STRING holding integers.
type benchCols struct {
	n  int
	x  []int64
	y  *vector.Vector
	f  []float64
	s  []string
	d  []vector.Value
	b  *vector.Vector
	sn []string
}

func benchColumns(n int) *benchCols {
	c := &benchCols{n: n, x: make([]int64, n), f: make([]float64, n), s: make([]string, n),
		d: make([]vector.Value, n), sn: make([]string, n),
		y: vector.New(vector.Int64, n), b: vector.New(vector.Bool, n)}
	seed := uint64(1)
	next := func() uint64 { seed = seed*6364136223846793005 + 1442695040888963407; return seed >> 33 }
	for i := range n {
		r := next()
		c.x[i] = 18 + int64(r%63)
		c.y.I64[i] = int64(r % 1000)
		if i%10 == 3 {
			c.y.SetNull(i)
		}
		c.f[i] = float64(r%10000) / 100
		if i%5 == 0 {
			c.s[i] = fmt.Sprintf(" Ñame_%d ", r%100000)
		} else {
			c.s[i] = fmt.Sprintf(" Name_%d ", r%100000)
		}
		c.d[i] = temporal.Date{Days: int64(r % 20000)}
		c.b.Bools[i] = r%3 == 0
		if i%7 == 5 {
			c.b.SetNull(i)
		}
		c.sn[i] = fmt.Sprint(r % 100000)
	}
	return c
}

// batches cuts the columns into full batches (vector.Capacity rows).
func (c *benchCols) batches() []*vector.Batch {
	var out []*vector.Batch
	for at := 0; at < c.n; at += vector.Capacity {
		m := min(vector.Capacity, c.n-at)
		y := vector.New(vector.Int64, m)
		b := vector.New(vector.Bool, m)
		copy(y.I64, c.y.I64[at:at+m])
		copy(b.Bools, c.b.Bools[at:at+m])
		for i := range m {
			if c.y.IsNull(at + i) {
				y.SetNull(i)
			}
			if c.b.IsNull(at + i) {
				b.SetNull(i)
			}
		}
		out = append(out, &vector.Batch{Len: m, Cols: []*vector.Vector{
			{Type: vector.Int64, I64: c.x[at : at+m]},
			y,
			{Type: vector.Float64, F64: c.f[at : at+m]},
			{Type: vector.String, Str: c.s[at : at+m]},
			{Type: vector.Any, Any: c.d[at : at+m]},
			b,
			{Type: vector.String, Str: c.sn[at : at+m]},
		}})
	}
	return out
}
