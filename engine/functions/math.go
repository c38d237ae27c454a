package functions

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// floatFuncs are the numeric functions from FLOAT to FLOAT; an INTEGER
// argument is widened. Their Float form runs over whole INTEGER and FLOAT
// vectors in engine/expr.
var floatFuncs = map[string]Func{
	"ceil":     {Min: 1, Max: 1, Result: vector.Float64, Doc: "ceil(x)", Args: args(ArgNum), Float: math.Ceil},
	"floor":    {Min: 1, Max: 1, Result: vector.Float64, Doc: "floor(x)", Args: args(ArgNum), Float: math.Floor},
	"sqrt":     {Min: 1, Max: 1, Result: vector.Float64, Doc: "sqrt(x)", Args: args(ArgNum), Float: math.Sqrt},
	"log":      {Min: 1, Max: 1, Result: vector.Float64, Doc: "log(x) — natural logarithm", Args: args(ArgNum), Float: math.Log},
	"log10":    {Min: 1, Max: 1, Result: vector.Float64, Doc: "log10(x)", Args: args(ArgNum), Float: math.Log10},
	"exp":      {Min: 1, Max: 1, Result: vector.Float64, Doc: "exp(x)", Args: args(ArgNum), Float: math.Exp},
	"sin":      {Min: 1, Max: 1, Result: vector.Float64, Doc: "sin(x)", Args: args(ArgNum), Float: math.Sin},
	"cos":      {Min: 1, Max: 1, Result: vector.Float64, Doc: "cos(x)", Args: args(ArgNum), Float: math.Cos},
	"tan":      {Min: 1, Max: 1, Result: vector.Float64, Doc: "tan(x)", Args: args(ArgNum), Float: math.Tan},
	"cot":      {Min: 1, Max: 1, Result: vector.Float64, Doc: "cot(x)", Args: args(ArgNum), Float: func(x float64) float64 { return 1 / math.Tan(x) }},
	"asin":     {Min: 1, Max: 1, Result: vector.Float64, Doc: "asin(x)", Args: args(ArgNum), Float: math.Asin},
	"acos":     {Min: 1, Max: 1, Result: vector.Float64, Doc: "acos(x)", Args: args(ArgNum), Float: math.Acos},
	"atan":     {Min: 1, Max: 1, Result: vector.Float64, Doc: "atan(x)", Args: args(ArgNum), Float: math.Atan},
	"degrees":  {Min: 1, Max: 1, Result: vector.Float64, Doc: "degrees(x) — radians to degrees", Args: args(ArgNum), Float: func(x float64) float64 { return x * 180 / math.Pi }},
	"radians":  {Min: 1, Max: 1, Result: vector.Float64, Doc: "radians(x) — degrees to radians", Args: args(ArgNum), Float: func(x float64) float64 { return x * math.Pi / 180 }},
	"haversin": {Min: 1, Max: 1, Result: vector.Float64, Doc: "haversin(x) — half of 1 - cos(x)", Args: args(ArgNum), Float: func(x float64) float64 { return (1 - math.Cos(x)) / 2 }},
}

func init() {
	fns := map[string]Func{
		"abs":   {Min: 1, Max: 1, Result: vector.Any, Doc: "abs(x)", Args: args(ArgNum), Kernel: fnAbs},
		"sign":  {Min: 1, Max: 1, Result: vector.Int64, Doc: "sign(x)", Args: args(ArgNum), Kernel: fnSign},
		"round": {Min: 1, Max: 3, Result: vector.Float64, Doc: "round(x[, precision[, mode]]) — half away from zero by default", Args: args(ArgNum, ArgInt, ArgString), Kernel: fnRound, Float: math.Round},
		"isnan": {Min: 1, Max: 1, Result: vector.Bool, Doc: "isNaN(x)", Args: args(ArgNum), Kernel: fnIsNaN},
		"pow": {Min: 2, Max: 2, Result: vector.Float64, Doc: "pow(x, y)", Args: args(ArgNum), Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
			return float2("pow", a, math.Pow)
		}},
		"atan2": {Min: 2, Max: 2, Result: vector.Float64, Doc: "atan2(y, x)", Args: args(ArgNum), Kernel: func(_ Env, a []vector.Value) (vector.Value, error) {
			return float2("atan2", a, math.Atan2)
		}},
		"rand": {Min: 0, Max: 0, Result: vector.Float64, Doc: "rand() — uniform in [0, 1)", Kernel: func(Env, []vector.Value) (vector.Value, error) { return rand.Float64(), nil }},
		"pi":   {Min: 0, Max: 0, Result: vector.Float64, Doc: "pi()", Kernel: func(Env, []vector.Value) (vector.Value, error) { return math.Pi, nil }},
		"e":    {Min: 0, Max: 0, Result: vector.Float64, Doc: "e()", Kernel: func(Env, []vector.Value) (vector.Value, error) { return math.E, nil }},
	}
	for name, f := range floatFuncs {
		fn := f
		fn.Kernel = float1(name, f.Float)
		fns[name] = fn
	}
	register(fns)
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

func float1(name string, f func(float64) float64) Kernel {
	return func(_ Env, a []vector.Value) (vector.Value, error) {
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

func fnAbs(_ Env, a []vector.Value) (vector.Value, error) {
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

func fnSign(_ Env, a []vector.Value) (vector.Value, error) {
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

func fnIsNaN(_ Env, a []vector.Value) (vector.Value, error) {
	x, ok, err := number("isNaN", a[0])
	if !ok {
		return nil, err
	}
	return math.IsNaN(x), nil
}

// fnRound rounds half away from zero; with a precision it rounds to that
// many decimal places of the value's shortest decimal form, by a mode
// (HALF_UP by default) as in Java's BigDecimal.
func fnRound(_ Env, a []vector.Value) (vector.Value, error) {
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
