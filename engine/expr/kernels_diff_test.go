package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// TestKernelsMatchRowPath checks every typed kernel against the generic
// path a row at a time (the catalog's scalar functions, called directly,
// with CASE, coalesce and the boolean operators spelled out as Cypher
// defines them) over random columns with nulls, with and without a
// selection vector: the selected rows' values, and whether the batch
// fails and with which code.
func TestKernelsMatchRowPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	for _, e := range diffExprs() {
		ev, err := Compile(&Env{}, e)
		if err != nil {
			t.Fatalf("%s: %v", e, err)
		}
		for round := range 12 {
			b := randomBatch(rng, round)
			out, err := ev.Eval(b)
			checkAgainstRows(t, e, b, out, err)
		}
	}
}

// The random batch's columns.
var (
	dx = &plan.ColRef{Idx: 0, Name: "x", T: vector.Int64}   // small integers, nulls
	dy = &plan.ColRef{Idx: 1, Name: "y", T: vector.Int64}   // extreme integers and 0, nulls
	df = &plan.ColRef{Idx: 2, Name: "f", T: vector.Float64} // floats with NaN, ±Inf, -0, nulls
	ds = &plan.ColRef{Idx: 3, Name: "s", T: vector.String}  // strings, empty, unicode, padded, nulls
	db = &plan.ColRef{Idx: 4, Name: "b", T: vector.Bool}    // booleans, nulls
	dm = &plan.ColRef{Idx: 5, Name: "m", T: vector.Any}     // mixed values
	dd = &plan.ColRef{Idx: 6, Name: "d", T: vector.Any}     // dates, nulls
	dn = &plan.ColRef{Idx: 7, Name: "n", T: vector.String}  // numeric text, nulls
)

func diffExprs() []plan.Expr {
	var out []plan.Expr
	nums := []plan.Expr{dx, dy, df, dm, lit(int64(0)), lit(int64(-1)), lit(int64(7)), lit(2.5), lit(int64(math.MaxInt64)), lit(nil)}
	for _, op := range []plan.BinOp{plan.OpAdd, plan.OpSub, plan.OpMul, plan.OpDiv, plan.OpMod} {
		for _, l := range []plan.Expr{dx, dy, df, dm} {
			for _, r := range nums {
				out = append(out, bin(op, l, r))
			}
		}
	}
	out = append(out, bin(plan.OpAdd, ds, ds), bin(plan.OpAdd, ds, lit("é")), bin(plan.OpAdd, lit(""), ds), bin(plan.OpAdd, ds, dm))
	out = append(out, &plan.Neg{X: dx}, &plan.Neg{X: dy}, &plan.Neg{X: df}, &plan.Neg{X: dm})
	for _, op := range []plan.BinOp{plan.OpEq, plan.OpNe, plan.OpLt, plan.OpLe, plan.OpGt, plan.OpGe} {
		for _, pair := range [][2]plan.Expr{{dx, dy}, {dx, df}, {df, dx}, {dx, lit(int64(3))}, {dx, lit(2.5)},
			{df, lit(int64(1))}, {ds, lit("m")}, {ds, ds}, {dm, dx}, {dx, lit(nil)}, {db, db}} {
			out = append(out, bin(op, pair[0], pair[1]))
		}
	}
	lt := bin(plan.OpLt, dx, lit(int64(4)))
	gt := bin(plan.OpGt, dy, lit(int64(0)))
	for _, op := range []plan.BinOp{plan.OpAnd, plan.OpOr, plan.OpXor} {
		out = append(out, bin(op, db, lt), bin(op, lt, db), bin(op, bin(op, db, gt), &plan.Not{X: db}), bin(op, lit(nil), db))
	}
	out = append(out, &plan.Not{X: db}, &plan.Not{X: lt})
	out = append(out,
		searchedCase(vector.String, lit("c"), lt, lit("a"), gt, lit("b")),
		searchedCase(vector.String, lit(nil), lt, lit("a"), db, ds),
		searchedCase(vector.Int64, bin(plan.OpDiv, lit(int64(100)), dx), bin(plan.OpEq, dx, lit(int64(0))), lit(int64(-1))),
		searchedCase(vector.Any, dm, db, dx, lt, df),
		searchedCase(vector.Int64, dy, db, dx),
		searchedCase(vector.String, lit("z"), dm, lit("y")), // a WHEN of no boolean: an error where reached
		simpleCase(vector.String, dx, lit("other"), lit(int64(1)), lit("one"), lit(int64(2)), ds),
		simpleCase(vector.Int64, ds, dx, lit("m"), dy),
		simpleCase(vector.Int64, dx, lit(int64(0)), df, lit(int64(5)), dy, lit(int64(9))),
		simpleCase(vector.Int64, dm, lit(nil), lit(int64(1)), lit(int64(10)), lit("m"), lit(int64(11))),
		simpleCase(vector.Int64, db, lit(int64(0)), lit(true), lit(int64(1))),
		// Constant and column branches placed without the rows apart.
		simpleCase(vector.Int64, bin(plan.OpMod, dx, lit(int64(3))), dx, lit(int64(0)), lit(int64(100)), lit(int64(1)), dy, lit(int64(2)), lit(nil)),
		simpleCase(vector.String, dx, ds, lit(int64(1)), lit("one"), lit(int64(-1)), ds, lit(int64(2)), lit(nil)),
		searchedCase(vector.Float64, df, lt, lit(1.5), gt, df),
		searchedCase(vector.Bool, db, lt, lit(nil), gt, db),
		searchedCase(vector.String, ds, db, ds, lt, lit("k"), gt, ds),
		// Overlapping WHENs: the first that holds decides.
		searchedCase(vector.Int64, lit(int64(-1)),
			bin(plan.OpLt, dx, lit(int64(0))), lit(int64(0)), bin(plan.OpLt, dx, lit(int64(1))), dy,
			bin(plan.OpLt, dx, lit(int64(2))), lit(int64(2)), db, dx,
			bin(plan.OpLt, dx, lit(int64(4))), lit(int64(4)), bin(plan.OpGt, dy, lit(int64(0))), lit(nil),
			bin(plan.OpLt, dx, lit(int64(6))), dx, bin(plan.OpLt, dx, lit(int64(7))), lit(int64(7))),
		simpleCase(vector.Int64, dx, dy, lit(int64(1)), lit(int64(10)), lit(int64(1)), lit(int64(11)), lit(int64(2)), dx),
		simpleCase(vector.Int64, dy, dx, lit(int64(math.MaxInt64)), lit(int64(1)), lit(int64(math.MaxInt64-1)), dx, lit(int64(0)), lit(int64(3))),
		simpleCase(vector.Int64, dy, dx, lit(int64(math.MinInt64)), lit(int64(1)), lit(int64(math.MinInt64+2)), dx, lit(int64(-1)), lit(int64(3))),
		simpleCase(vector.Int64, dx, lit(int64(-9)), lit(int64(-3)), lit(int64(1)), lit(int64(3)), dy, lit(int64(-3)), lit(int64(2))),
		call("coalesce", vector.Int64, dy, dx),
		call("coalesce", vector.Int64, dy, lit(nil), dx, lit(int64(5))),
		call("coalesce", vector.String, ds, lit("none")),
		call("coalesce", vector.Any, dm, dx),
		call("coalesce", vector.Float64, df, lit(1.5)),
		inList(dx, int64(1), int64(3), int64(5)),
		inList(dy, int64(0), int64(math.MinInt64), int64(1), int64(2), int64(3), int64(4), int64(5), int64(6), int64(7), int64(8)),
		inList(ds, "m", "ñ", ""),
		inList(dm, int64(1), int64(2)),
	)
	for _, name := range []string{"tolower", "toupper", "trim", "ltrim", "rtrim", "size", "tostring", "tointeger", "tofloat", "toboolean"} {
		for _, x := range []plan.Expr{ds, dn, dx, dm} {
			f, _ := functions.Lookup(name)
			out = append(out, call(name, f.Result, x))
		}
	}
	for _, x := range []plan.Expr{df, db} {
		out = append(out, call("tostring", vector.String, x), call("tointeger", vector.Int64, x), call("toboolean", vector.Bool, x))
	}
	for _, n := range []plan.Expr{lit(int64(0)), lit(int64(2)), lit(int64(100)), lit(int64(-1)), lit(nil), dx} {
		out = append(out, call("left", vector.String, ds, n), call("right", vector.String, ds, n),
			call("substring", vector.String, ds, n), call("substring", vector.String, ds, lit(int64(1)), n))
	}
	for _, sep := range []plan.Expr{lit(","), lit(""), lit(nil), ds} {
		out = append(out, call("split", vector.Any, ds, sep))
	}
	for _, op := range []string{functions.OpStartsWith, functions.OpEndsWith, functions.OpContains} {
		out = append(out, call(op, vector.Bool, ds, lit("m")), call(op, vector.Bool, ds, lit("")), call(op, vector.Bool, ds, ds), call(op, vector.Bool, dm, lit("m")))
	}
	for _, p := range []string{"Hello, W", "Hello, Wo", "  ABC", " ñ", "日本", "Long ASCII ", "ma"} { // a word, more, less
		out = append(out, call(functions.OpStartsWith, vector.Bool, ds, lit(p)))
	}
	for _, key := range []string{"year", "month", "day", "quarter", "week", "dayOfWeek", "ordinalDay", "hour"} {
		out = append(out, &plan.Property{Of: dd, Key: key})
	}
	for _, unit := range []string{"year", "month", "week", "day", "quarter", "decade"} {
		out = append(out, &plan.Call{Name: "date.truncate", T: vector.Any, Kind: "DATE", Args: []plan.Expr{lit(unit), dd}})
	}
	// date({…}) from INTEGER fields: null-free valid fields (the kernel),
	// and nulls, days past a month's end, months and years out of range,
	// mixed values and a day without a month (the general path's values
	// and errors).
	x0 := call("coalesce", vector.Int64, dx, lit(int64(0)))
	date := func(keys []string, vals ...plan.Expr) plan.Expr {
		return &plan.Call{Name: "date", T: vector.Any, Kind: "DATE", Args: []plan.Expr{&plan.Map{Keys: keys, Vals: vals}}}
	}
	out = append(out,
		date([]string{"year", "month", "day"}, bin(plan.OpAdd, lit(int64(1996)), x0), bin(plan.OpAdd, lit(int64(3)), x0), bin(plan.OpAdd, lit(int64(23)), x0)),
		date([]string{"Year", "MONTH"}, bin(plan.OpSub, lit(int64(-5)), x0), bin(plan.OpAdd, lit(int64(3)), x0)),
		date([]string{"year"}, bin(plan.OpMul, lit(int64(400)), x0)),
		date([]string{"year", "month", "day"}, lit(int64(2000)), lit(int64(2)), bin(plan.OpAdd, lit(int64(27)), x0)), // Feb 29 of a leap year, then past it
		date([]string{"year", "month", "day"}, lit(int64(1900)), lit(int64(2)), bin(plan.OpAdd, lit(int64(27)), x0)), // no Feb 29
		date([]string{"year", "month", "day"}, dx, dx, dx),
		date([]string{"year", "month"}, dy, lit(int64(1))),
		date([]string{"year", "day"}, lit(int64(2000)), x0),
		date([]string{"year", "month", "day"}, dm, lit(int64(1)), lit(int64(1))),
		date([]string{"year", "month", "day"}, df, lit(int64(1)), lit(int64(1))),
	)
	// List literals: INTEGER, FLOAT, nulls and generic elements.
	out = append(out,
		&plan.List{Elems: []plan.Expr{dx, bin(plan.OpAdd, dx, lit(int64(1))), dy}},
		&plan.List{Elems: []plan.Expr{bin(plan.OpAdd, dx, lit(int64(1))), bin(plan.OpAdd, dx, lit(int64(2))), bin(plan.OpMul, df, lit(2.0)), bin(plan.OpMul, df, lit(3.0))}},
		&plan.List{Elems: []plan.Expr{df, dx, ds, db, dm, dd, lit(nil), lit(int64(1 << 40))}},
		&plan.List{Elems: []plan.Expr{&plan.List{Elems: []plan.Expr{dx, df}}, dx}},
		&plan.List{Elems: []plan.Expr{}},
	)
	return out
}

// randomBatch is a full batch of the columns above, with a random
// selection on odd rounds.
func randomBatch(rng *rand.Rand, round int) *vector.Batch {
	n := vector.Capacity
	cols := []*vector.Vector{
		vector.New(vector.Int64, n), vector.New(vector.Int64, n), vector.New(vector.Float64, n),
		vector.New(vector.String, n), vector.New(vector.Bool, n), vector.New(vector.Any, n),
		vector.New(vector.Any, n), vector.New(vector.String, n),
	}
	ys := []int64{0, 1, -1, 2, math.MaxInt64, math.MinInt64, 1 << 40, -(1 << 40), 3}
	fs := []float64{0, math.Copysign(0, -1), 1, -2.5, 3, math.NaN(), math.Inf(1), math.Inf(-1), 1e300}
	ss := []string{"", "m", "M", "ma", "am", " ñam ", "ÑAM", "a,b,,c", "\tmé\n", "日本語", "m,m", "\u00a0Mx\u0085", "\xffA\xfe ", "İSTANBUL", " \u2003ǅ ",
		"Hello, World ZZ az@[`{", "  ABCDEFGH ijklmnop  ", "Long ASCII then Ünïcode ÀÉ", "ΑΒΓ mixed ΔΕ"}
	ns := []string{"12", "-3", "2.5", "1e3", "x", "", " 4", "9223372036854775807", "1e30", "true", "FALSE",
		"-0", "+7", "007", "999999999999999999", "1000000000000000000", "9007199254740993", "-", "+"}
	ms := []vector.Value{int64(1), 2.0, "m", true, int64(-3), nil}
	nullRate := []int{0, 2, 5}[round%3]
	for i := range n {
		cols[0].I64[i] = rng.Int64N(9) - 2
		cols[1].I64[i] = ys[rng.IntN(len(ys))]
		cols[2].F64[i] = fs[rng.IntN(len(fs))]
		cols[3].Str[i] = ss[rng.IntN(len(ss))]
		cols[4].Bools[i] = rng.IntN(2) == 0
		cols[5].Set(i, ms[rng.IntN(len(ms))])
		cols[6].Any[i] = temporal.Date{Days: rng.Int64N(40000) - 20000}
		if rng.IntN(4) == 0 { // around year 0, and far from it both ways
			cols[6].Any[i] = temporal.Date{Days: []int64{-civilEpoch, 1 << 33, -1 << 33}[rng.IntN(3)] + rng.Int64N(800) - 400}
		}
		cols[7].Str[i] = ns[rng.IntN(len(ns))]
		for _, c := range cols {
			if nullRate > 0 && rng.IntN(nullRate) == 0 {
				c.SetNull(i)
			}
		}
	}
	b := &vector.Batch{Cols: cols, Len: n}
	if round%2 == 1 {
		sel := []int32{}
		for i := range n {
			if rng.IntN(3) != 0 {
				sel = append(sel, int32(i))
			}
		}
		b.Sel = sel
	}
	return b
}

// checkAgainstRows compares a batch's result with the row path's.
func checkAgainstRows(t *testing.T, e plan.Expr, b *vector.Batch, out *vector.Vector, err error) {
	t.Helper()
	var want []vector.Value
	codes := map[string]bool{}
	for k := range b.Rows() {
		r := b.Row(k)
		row := make([]vector.Value, len(b.Cols))
		for i, c := range b.Cols {
			row[i] = c.Get(r)
		}
		v, rerr := rowEval(e, row)
		if rerr != nil {
			codes[errCode(rerr)] = true
		}
		want = append(want, v)
	}
	if len(codes) > 0 {
		if err == nil {
			t.Fatalf("%s: no error, the row path fails with %v", e, codes)
		}
		if len(codes) == 1 && !codes[errCode(err)] {
			t.Fatalf("%s: error %v (%s), the row path's code is %v", e, err, errCode(err), codes)
		}
		return
	}
	if err != nil {
		t.Fatalf("%s: %v, the row path does not fail", e, err)
	}
	for k := range b.Rows() {
		got := out.Get(b.Row(k))
		if !sameValue(got, want[k]) {
			t.Fatalf("%s: row %d: got %#v, the row path gives %#v", e, b.Row(k), got, want[k])
		}
	}
}

func errCode(err error) string {
	if e, ok := errs.As(err); ok {
		return fmt.Sprint(e.Code)
	}
	return "no code: " + err.Error()
}

func sameValue(a, b vector.Value) bool {
	if fa, ok := a.(float64); ok {
		fb, ok := b.(float64)
		return ok && (fa == fb && math.Signbit(fa) == math.Signbit(fb) || math.IsNaN(fa) && math.IsNaN(fb))
	}
	if la, ok := a.([]vector.Value); ok {
		lb, ok := b.([]vector.Value)
		if !ok || len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !sameValue(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// rowEval evaluates e over one row of generic values, as Cypher defines
// it, through the catalog's scalar functions.
func rowEval(e plan.Expr, row []vector.Value) (vector.Value, error) {
	switch e := e.(type) {
	case *plan.ColRef:
		return row[e.Idx], nil
	case *plan.Const:
		return e.Val, nil
	case *plan.Not:
		x, err := rowEval(e.X, row)
		if err != nil || x == nil {
			return nil, err
		}
		bv, ok := x.(bool)
		if !ok {
			return nil, errs.Data("NOT of a %s", functions.TypeName(x))
		}
		return !bv, nil
	case *plan.Neg:
		x, err := rowEval(e.X, row)
		if err != nil || x == nil {
			return nil, err
		}
		if f, isFloat := x.(float64); isFloat {
			return -f, nil
		}
		return functions.ArithValues('-', int64(0), x)
	case *plan.Property:
		x, err := rowEval(e.Of, row)
		if err != nil || x == nil {
			return nil, err
		}
		return functions.TemporalProperty(x, e.Key)
	case *plan.Binary:
		l, err := rowEval(e.L, row)
		if err != nil {
			return nil, err
		}
		r, err := rowEval(e.R, row)
		if err != nil {
			return nil, err
		}
		switch {
		case e.Op.IsLogical():
			return rowLogic(e.Op, l, r)
		case e.Op == plan.OpEq || e.Op == plan.OpNe:
			eq, null := functions.EqualValues(l, r)
			if null {
				return nil, nil
			}
			return eq == (e.Op == plan.OpEq), nil
		case e.Op.IsComparison():
			if functions.UnorderedNaN(l, r) {
				// NaN is below, above and equal to nothing (false),
				// as IEEE orders it, on the typed and generic paths.
				return false, nil
			}
			c, ok := functions.OrderValues(l, r)
			if !ok {
				return nil, nil
			}
			return holds(e.Op, c), nil
		}
		return functions.ArithValues(arithOps[e.Op], l, r)
	case *plan.Call:
		return rowCall(e, row)
	case *plan.List:
		l := make([]vector.Value, len(e.Elems))
		for i, x := range e.Elems {
			v, err := rowEval(x, row)
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return l, nil
	case *plan.Map:
		m := make(map[string]vector.Value, len(e.Keys))
		for i, k := range e.Keys {
			v, err := rowEval(e.Vals[i], row)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	}
	panic(fmt.Sprintf("rowEval: %T", e))
}

func rowLogic(op plan.BinOp, l, r vector.Value) (vector.Value, error) {
	for _, x := range []vector.Value{l, r} {
		if _, ok := x.(bool); x != nil && !ok {
			return nil, errs.Data("%s of a %s", op, functions.TypeName(x))
		}
	}
	lb, ln := l.(bool)
	rb, rn := r.(bool)
	switch op {
	case plan.OpAnd:
		if (ln && !lb) || (rn && !rb) {
			return false, nil
		}
		if ln && rn {
			return true, nil
		}
	case plan.OpOr:
		if (ln && lb) || (rn && rb) {
			return true, nil
		}
		if ln && rn {
			return false, nil
		}
	default:
		if ln && rn {
			return lb != rb, nil
		}
	}
	return nil, nil
}

func rowCall(e *plan.Call, row []vector.Value) (vector.Value, error) {
	switch e.Name {
	case functions.OpCase:
		simple := e.Args[0].(*plan.Const).Val.(bool)
		subj, err := rowEval(e.Args[1], row)
		if err != nil {
			return nil, err
		}
		for i := 2; i+1 < len(e.Args)-1; i += 2 {
			w, err := rowEval(e.Args[i], row)
			if err != nil {
				return nil, err
			}
			take := false
			if simple {
				take, _ = functions.EqualValues(subj, w)
			} else if w != nil {
				bv, ok := w.(bool)
				if !ok {
					return nil, errs.Data("CASE WHEN of a %s", functions.TypeName(w))
				}
				take = bv
			}
			if take {
				return rowEval(e.Args[i+1], row)
			}
		}
		return rowEval(e.Args[len(e.Args)-1], row)
	case "coalesce":
		for _, a := range e.Args {
			v, err := rowEval(a, row)
			if err != nil || v != nil {
				return v, err
			}
		}
		return nil, nil
	}
	args := make([]vector.Value, len(e.Args))
	for i, a := range e.Args {
		v, err := rowEval(a, row)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	f, _ := functions.Lookup(e.Name)
	return f.Kernel(&Env{}, args)
}
