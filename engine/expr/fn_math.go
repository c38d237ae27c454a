package expr

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// floatFuncs are the numeric functions from FLOAT to FLOAT; an INTEGER
// argument is widened. They have a typed kernel over INTEGER and FLOAT
// vectors.
var floatFuncs = map[string]func(float64) float64{
	"ceil":     math.Ceil,
	"floor":    math.Floor,
	"sqrt":     math.Sqrt,
	"log":      math.Log,
	"log10":    math.Log10,
	"exp":      math.Exp,
	"sin":      math.Sin,
	"cos":      math.Cos,
	"tan":      math.Tan,
	"cot":      func(x float64) float64 { return 1 / math.Tan(x) },
	"asin":     math.Asin,
	"acos":     math.Acos,
	"atan":     math.Atan,
	"degrees":  func(x float64) float64 { return x * 180 / math.Pi },
	"radians":  func(x float64) float64 { return x * math.Pi / 180 },
	"haversin": func(x float64) float64 { return (1 - math.Cos(x)) / 2 },
	"round":    math.Round, // half away from zero
}

func init() {
	fns := map[string]scalarFunc{
		"abs":   fnAbs,
		"sign":  fnSign,
		"round": fnRound,
		"isnan": fnIsNaN,
		"pow": func(_ *Env, a []vector.Value) (vector.Value, error) {
			return float2("pow", a, math.Pow)
		},
		"atan2": func(_ *Env, a []vector.Value) (vector.Value, error) {
			return float2("atan2", a, math.Atan2)
		},
		"rand": func(*Env, []vector.Value) (vector.Value, error) { return rand.Float64(), nil },
		"pi":   func(*Env, []vector.Value) (vector.Value, error) { return math.Pi, nil },
		"e":    func(*Env, []vector.Value) (vector.Value, error) { return math.E, nil },
	}
	for name, f := range floatFuncs {
		if name == "round" {
			continue
		}
		fns[name] = float1(name, f)
	}
	register(fns)
	for name := range floatFuncs {
		registerCompiler(name, compileFloatFunc)
	}
	registerCompiler("abs", compileFloatFunc)
}

// number reads a numeric argument as a FLOAT.
func number(fn string, v vector.Value) (float64, bool, error) {
	switch x := v.(type) {
	case nil:
		return 0, false, nil
	case int64:
		return float64(x), true, nil
	case float64:
		return x, true, nil
	}
	return 0, false, argError(fn, v)
}

func float1(name string, f func(float64) float64) scalarFunc {
	return func(_ *Env, a []vector.Value) (vector.Value, error) {
		x, ok, err := number(name, a[0])
		if !ok {
			return nil, err
		}
		return f(x), nil
	}
}

func float2(name string, a []vector.Value, f func(x, y float64) float64) (vector.Value, error) {
	x, ok, err := number(name, a[0])
	if !ok {
		return nil, err
	}
	y, ok, err := number(name, a[1])
	if !ok {
		return nil, err
	}
	return f(x, y), nil
}

func fnAbs(_ *Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case int64:
		if x == math.MinInt64 {
			return nil, errs.DataCode(errs.CodeOverflow, "integer overflow: abs(%d)", x)
		}
		if x < 0 {
			return -x, nil
		}
		return x, nil
	case float64:
		return math.Abs(x), nil
	}
	return nil, argError("abs", a[0])
}

func fnSign(_ *Env, a []vector.Value) (vector.Value, error) {
	switch x := a[0].(type) {
	case nil:
		return nil, nil
	case int64:
		return int64(CmpOrdered(x, 0)), nil
	case float64:
		switch {
		case x > 0:
			return int64(1), nil
		case x < 0:
			return int64(-1), nil
		}
		return int64(0), nil
	}
	return nil, argError("sign", a[0])
}

func fnIsNaN(_ *Env, a []vector.Value) (vector.Value, error) {
	x, ok, err := number("isNaN", a[0])
	if !ok {
		return nil, err
	}
	return math.IsNaN(x), nil
}

// fnRound rounds half away from zero; with a precision it rounds to that
// many decimal places of the value's shortest decimal form, by a mode
// (HALF_UP by default) as in Java's BigDecimal.
func fnRound(_ *Env, a []vector.Value) (vector.Value, error) {
	x, ok, err := number("round", a[0])
	if !ok {
		return nil, err
	}
	if len(a) == 1 {
		return math.Round(x), nil
	}
	if a[1] == nil {
		return nil, nil
	}
	prec, isInt := a[1].(int64)
	if !isInt {
		return nil, errs.Data("round(): precision must be an INTEGER, got %s", TypeName(a[1]))
	}
	mode := "HALF_UP"
	if len(a) > 2 {
		if a[2] == nil {
			return nil, nil
		}
		m, isStr := a[2].(string)
		if !isStr {
			return nil, errs.Data("round(): mode must be a STRING, got %s", TypeName(a[2]))
		}
		mode = strings.ToUpper(m)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || prec > 300 {
		return x, nil
	}
	if prec < -300 {
		return nil, errs.Data("round(): precision %d is out of range", prec)
	}
	return roundDecimal(x, int(prec), mode)
}

// roundDecimal rounds x at prec decimal places exactly, on the decimal
// value x prints as.
func roundDecimal(x float64, prec int, mode string) (vector.Value, error) {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	if !ok {
		return x, nil
	}
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(prec))), nil))
	if prec >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	neg := r.Sign() < 0
	r.Abs(r)
	q, rem := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	// half compares the remainder with half the denominator: -1, 0, 1.
	half := new(big.Int).Lsh(rem, 1).Cmp(r.Denom())
	up := false
	switch mode {
	case "UP":
		up = rem.Sign() != 0
	case "DOWN":
	case "CEILING":
		up = rem.Sign() != 0 && !neg
	case "FLOOR":
		up = rem.Sign() != 0 && neg
	case "HALF_UP":
		up = half >= 0
	case "HALF_DOWN":
		up = half > 0
	case "HALF_EVEN":
		up = half > 0 || (half == 0 && q.Bit(0) == 1)
	default:
		return nil, errs.Data("round(): unknown rounding mode %q", mode)
	}
	if up {
		q.Add(q, big.NewInt(1))
	}
	res := new(big.Rat).SetInt(q)
	if prec >= 0 {
		res.Quo(res, scale)
	} else {
		res.Mul(res, scale)
	}
	f, _ := res.Float64()
	if neg {
		f = -f
	}
	return f, nil
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// floatFuncEval is the typed kernel of a FLOAT function (and abs) over
// INTEGER and FLOAT vectors; other vectors take the row path.
type floatFuncEval struct {
	name string
	f    func(float64) float64
	x    Evaluator
	row  *callEval
	out  *vector.Vector
}

func compileFloatFunc(c *Env, e *plan.Call) (Evaluator, error) {
	if len(e.Args) != 1 {
		return nil, nil // round with a precision
	}
	row, err := compileRowCall(c, e)
	if err != nil {
		return nil, err
	}
	return &floatFuncEval{name: e.Name, f: floatFuncs[e.Name], x: row.args[0], row: row}, nil
}

func (e *floatFuncEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.x.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	switch {
	case x.Type == vector.Null:
		return NullVector, nil
	case e.name == "abs" && x.Type == vector.Int64:
		e.out = vector.Reuse(e.out, vector.Int64)
		out, in := e.out.I64[:n], x.I64[:n]
		bad := false
		for i, v := range in {
			if v < 0 {
				v = -v
			}
			bad = bad || v < 0
			out[i] = v
		}
		if bad {
			var failed error
			vector.ForRows(sel, n, func(r int) {
				if !x.IsNull(r) && x.I64[r] == math.MinInt64 {
					failed = errs.DataCode(errs.CodeOverflow, "integer overflow: abs(%d)", x.I64[r])
				}
			})
			if failed != nil {
				return nil, failed
			}
		}
	case e.name == "abs" && x.Type == vector.Float64:
		e.out = vector.Reuse(e.out, vector.Float64)
		out, in := e.out.F64[:n], x.F64[:n]
		for i, v := range in {
			out[i] = math.Abs(v)
		}
	case e.name != "abs" && x.Type == vector.Float64:
		e.out = vector.Reuse(e.out, vector.Float64)
		out, in, f := e.out.F64[:n], x.F64[:n], e.f
		for i, v := range in {
			out[i] = f(v)
		}
	case e.name != "abs" && x.Type == vector.Int64:
		e.out = vector.Reuse(e.out, vector.Float64)
		out, in, f := e.out.F64[:n], x.I64[:n], e.f
		for i, v := range in {
			out[i] = f(float64(v))
		}
	default:
		e.row.vecs[0] = x
		return e.row.evalVecs(b, e.row.vecs)
	}
	copyNulls(e.out, x, sel, n)
	return e.out, nil
}
