package functions

import (
	"math"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

func TestEqualValues(t *testing.T) {
	l := func(xs ...vector.Value) []vector.Value { return xs }
	cases := []struct {
		a, b     vector.Value
		eq, null bool
	}{
		{int64(1), 1.0, true, false},
		{int64(1), "1", false, false},
		{nil, int64(1), false, true},
		{l(int64(1), nil), l(int64(1), nil), false, true},
		{l(int64(1), nil), l(int64(2), nil), false, false}, // a difference beats a null
		{l(int64(1)), l(int64(1), int64(2)), false, false},
		{map[string]vector.Value{"a": int64(1)}, map[string]vector.Value{"a": 1.0}, true, false},
		{vector.NodeRef(1), vector.NodeRef(1), true, false},
		{vector.NodeRef(1), vector.RelRef(1), false, false},
		{math.NaN(), math.NaN(), false, false},
	}
	for _, c := range cases {
		eq, null := EqualValues(c.a, c.b)
		if eq != c.eq || null != c.null {
			t.Errorf("EqualValues(%v, %v) = %v, %v; want %v, %v", c.a, c.b, eq, null, c.eq, c.null)
		}
	}
}

func TestOrderValues(t *testing.T) {
	cases := []struct {
		a, b vector.Value
		cmp  int
		ok   bool
	}{
		{int64(1), 2.5, -1, true},
		{"b", "a", 1, true},
		{false, true, -1, true},
		{int64(1), "a", 0, false},
		{math.NaN(), 1.0, 0, false},
		{nil, nil, 0, false},
		// Lists: lexicographic, a prefix first; an unorderable pair
		// before the first difference makes the result null.
		{[]vector.Value{int64(1), int64(2)}, []vector.Value{int64(3), int64(4)}, -1, true},
		{[]vector.Value{int64(2), int64(-2)}, []vector.Value{int64(2), int64(-2), int64(100)}, -1, true},
		{[]vector.Value{}, []vector.Value{int64(1)}, -1, true},
		{[]vector.Value{int64(300), int64(0)}, []vector.Value{int64(2), int64(2)}, 1, true},
		{[]vector.Value{int64(1), 2.0}, []vector.Value{1.0, int64(2)}, 0, true},
		{[]vector.Value{int64(1), nil}, []vector.Value{int64(1), int64(2)}, 0, false},
		{[]vector.Value{int64(1), nil}, []vector.Value{int64(2), int64(2)}, -1, true},
		{[]vector.Value{"a"}, []vector.Value{int64(1)}, 0, false},
		{[]vector.Value{int64(1)}, int64(1), 0, false},
	}
	for _, c := range cases {
		cmp, ok := OrderValues(c.a, c.b)
		if cmp != c.cmp || ok != c.ok {
			t.Errorf("OrderValues(%v, %v) = %d, %v; want %d, %v", c.a, c.b, cmp, ok, c.cmp, c.ok)
		}
	}
}

func TestArithIntEdges(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	bad := []struct {
		op   byte
		x, y int64
		code string
	}{
		{'+', maxI, 1, errs.CodeOverflow},
		{'-', minI, 1, errs.CodeOverflow},
		{'*', maxI, 2, errs.CodeOverflow},
		{'*', minI, -1, errs.CodeOverflow},
		{'*', -1, minI, errs.CodeOverflow},
		{'/', minI, -1, errs.CodeOverflow},
		{'/', 1, 0, errs.CodeDivByZero},
		{'%', 1, 0, errs.CodeDivByZero},
	}
	for _, c := range bad {
		_, err := ArithInt(c.op, c.x, c.y)
		e, ok := errs.As(err)
		if !ok || e.Code != c.code {
			t.Errorf("%d %c %d: err = %v, want code %s", c.x, c.op, c.y, err, c.code)
		}
	}
	good := []struct {
		op      byte
		x, y, r int64
	}{
		{'+', maxI, minI, -1}, {'-', -1, maxI, minI}, {'*', minI, 1, minI}, {'%', minI, -1, 0}, {'/', -7, 2, -3}, {'%', -7, 2, -1},
	}
	for _, c := range good {
		v, err := ArithInt(c.op, c.x, c.y)
		if err != nil || v != c.r {
			t.Errorf("%d %c %d = %v, %v; want %d", c.x, c.op, c.y, v, err, c.r)
		}
	}
}
