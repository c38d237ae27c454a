package functions

import (
	"math"
	"strconv"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// This file is the slow path: operations on single generic values, used
// where a vector holds mixed types, lists or maps. Typed vectors never come
// here.

// TypeName names a value's type for error messages.
func TypeName(v vector.Value) string {
	switch v.(type) {
	case nil:
		return "NULL"
	case bool:
		return "BOOLEAN"
	case int64:
		return "INTEGER"
	case float64:
		return "FLOAT"
	case string:
		return "STRING"
	case []vector.Value:
		return "LIST"
	case map[string]vector.Value:
		return "MAP"
	case vector.NodeRef:
		return "NODE"
	case vector.RelRef:
		return "RELATIONSHIP"
	case vector.Path:
		return "PATH"
	}
	if n := temporal.TypeName(v); n != "" {
		return n
	}
	return "ANY"
}

// EqualValues is Cypher equality: null when either side is null (or a
// list comparison meets a null element before a difference), numbers
// compare by value across INTEGER and FLOAT, values of different types are
// unequal.
func EqualValues(a, b vector.Value) (eq, null bool) {
	if a == nil || b == nil {
		return false, true
	}
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y, false
		case float64:
			return float64(x) == y, false
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y), false
		case float64:
			return x == y, false
		}
	case bool:
		y, ok := b.(bool)
		return ok && x == y, false
	case string:
		y, ok := b.(string)
		return ok && x == y, false
	case vector.NodeRef:
		y, ok := b.(vector.NodeRef)
		return ok && x == y, false
	case vector.RelRef:
		y, ok := b.(vector.RelRef)
		return ok && x == y, false
	case []vector.Value:
		y, ok := b.([]vector.Value)
		if !ok || len(x) != len(y) {
			return false, false
		}
		sawNull := false
		for i := range x {
			e, n := EqualValues(x[i], y[i])
			if n {
				sawNull = true
			} else if !e {
				return false, false
			}
		}
		return !sawNull, sawNull
	case map[string]vector.Value:
		y, ok := b.(map[string]vector.Value)
		if !ok || len(x) != len(y) {
			return false, false
		}
		sawNull := false
		for k, xv := range x {
			yv, ok := y[k]
			if !ok {
				return false, false
			}
			e, n := EqualValues(xv, yv)
			if n {
				sawNull = true
			} else if !e {
				return false, false
			}
		}
		return !sawNull, sawNull
	case vector.Path:
		y, ok := b.(vector.Path)
		if !ok || len(x.Nodes) != len(y.Nodes) {
			return false, false
		}
		for i := range x.Nodes {
			if x.Nodes[i] != y.Nodes[i] {
				return false, false
			}
		}
		for i := range x.Rels {
			if x.Rels[i] != y.Rels[i] {
				return false, false
			}
		}
		return true, false
	}
	return temporalEqual(a, b), false
}

// UnorderedNaN reports whether a and b are numbers of which one is NaN:
// an ordering comparison of them (<, <=, >, >=) is false, as IEEE 754
// orders NaN and as the typed FLOAT kernels compare, not null.
func UnorderedNaN(a, b vector.Value) bool {
	return isNumber(a) && isNumber(b) && (isNaNValue(a) || isNaNValue(b))
}

func isNumber(v vector.Value) bool {
	switch v.(type) {
	case int64, float64:
		return true
	}
	return false
}

func isNaNValue(v vector.Value) bool {
	f, ok := v.(float64)
	return ok && math.IsNaN(f)
}

// OrderValues compares two values for <, <=, > and >=: ok is false when
// they are not comparable (null, or different types), which makes the
// comparison null.
func OrderValues(a, b vector.Value) (cmp int, ok bool) {
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return CmpOrdered(x, y), true
		case float64:
			return cmpFloat(float64(x), y)
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return cmpFloat(x, float64(y))
		case float64:
			return cmpFloat(x, y)
		}
	case string:
		if y, isStr := b.(string); isStr {
			return CmpOrdered(x, y), true
		}
	case bool:
		if y, isBool := b.(bool); isBool {
			return CmpBool(x, y), true
		}
	case []vector.Value:
		if y, isList := b.([]vector.Value); isList {
			return orderLists(x, y)
		}
	}
	return temporalOrder(a, b)
}

// orderLists compares lists lexicographically: the first pair of elements
// that differs decides, and a list that is a prefix of the other is the
// smaller. A pair that cannot be ordered (a null, different types) before
// the decision makes the comparison null, as it does between elements.
func orderLists(x, y []vector.Value) (int, bool) {
	for i := 0; i < len(x) && i < len(y); i++ {
		c, ok := OrderValues(x[i], y[i])
		if !ok || c != 0 {
			return c, ok
		}
	}
	return CmpOrdered(int64(len(x)), int64(len(y))), true
}

func CmpOrdered[T int64 | string](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpFloat orders floats; NaN compares with nothing.
func cmpFloat(a, b float64) (int, bool) {
	switch {
	case a < b:
		return -1, true
	case a > b:
		return 1, true
	case a == b:
		return 0, true
	}
	return 0, false
}

func CmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// ArithValues applies an arithmetic operator to two values.
func ArithValues(op byte, a, b vector.Value) (vector.Value, error) {
	if a == nil || b == nil {
		return nil, nil
	}
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return ArithInt(op, x, y)
		case float64:
			return ArithFloat(op, float64(x), y), nil
		case string:
			if op == '+' {
				return strconv.FormatInt(x, 10) + y, nil
			}
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return ArithFloat(op, x, float64(y)), nil
		case float64:
			return ArithFloat(op, x, y), nil
		case string:
			if op == '+' {
				return FormatFloat(x) + y, nil
			}
		}
	case string:
		if op == '+' {
			switch y := b.(type) {
			case string:
				return x + y, nil
			case int64:
				return x + strconv.FormatInt(y, 10), nil
			case float64:
				return x + FormatFloat(y), nil
			}
		}
	case []vector.Value:
		if op == '+' {
			out := append([]vector.Value(nil), x...)
			if y, ok := b.([]vector.Value); ok {
				return append(out, y...), nil
			}
			return append(out, b), nil
		}
	}
	if y, ok := b.([]vector.Value); ok && op == '+' {
		return append([]vector.Value{a}, y...), nil
	}
	if v, handled, err := temporalArith(op, a, b); handled {
		return v, err
	}
	return nil, errs.Data("cannot apply %s to %s and %s", opName(op), TypeName(a), TypeName(b))
}

func opName(op byte) string {
	if op == '^' {
		return "^"
	}
	return string(op)
}

// ArithInt is integer arithmetic that fails on overflow instead of wrapping,
// and on division by zero.
func ArithInt(op byte, x, y int64) (vector.Value, error) {
	switch op {
	case '+':
		r := x + y
		if (r > x) != (y > 0) {
			return nil, overflow(op, x, y)
		}
		return r, nil
	case '-':
		r := x - y
		if (r < x) != (y > 0) {
			return nil, overflow(op, x, y)
		}
		return r, nil
	case '*':
		if x == 0 || y == 0 {
			return int64(0), nil
		}
		r := x * y
		if r/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return nil, overflow(op, x, y)
		}
		return r, nil
	case '/':
		if y == 0 {
			return nil, errs.DataCode(errs.CodeDivByZero, "division by zero")
		}
		if x == math.MinInt64 && y == -1 {
			return nil, overflow(op, x, y)
		}
		return x / y, nil
	case '%':
		if y == 0 {
			return nil, errs.DataCode(errs.CodeDivByZero, "division by zero")
		}
		if y == -1 {
			return int64(0), nil
		}
		return x % y, nil
	case '^':
		return math.Pow(float64(x), float64(y)), nil
	}
	panic("BUG: functions: unknown arithmetic operator " + string(op))
}

func overflow(op byte, x, y int64) error {
	return errs.DataCode(errs.CodeOverflow, "integer overflow: %d %s %d", x, opName(op), y)
}

func ArithFloat(op byte, x, y float64) float64 {
	switch op {
	case '+':
		return x + y
	case '-':
		return x - y
	case '*':
		return x * y
	case '/':
		return x / y
	case '%':
		return math.Mod(x, y)
	case '^':
		return math.Pow(x, y)
	}
	panic("BUG: functions: unknown arithmetic operator " + string(op))
}

// FormatFloat renders a float the way string concatenation shows it:
// always with a fraction or exponent, so 1.0 stays distinguishable from 1.
func FormatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	for _, c := range s {
		if c == '.' || c == 'e' || c == 'n' || c == 'N' || c == 'I' {
			return s
		}
	}
	return s + ".0"
}
