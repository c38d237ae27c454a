package graphalytics

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseValue(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Value
	}{
		{"0", IntValue(0)},
		{"9223372036854775807", IntValue(math.MaxInt64)},
		{"-3", IntValue(-3)},
		{"0.0", FloatValue(0)},
		{"8.200000000000000e-01", FloatValue(0.82)},
		{"1e3", FloatValue(1000)},
		{"infinity", FloatValue(math.Inf(1))},
		{"Infinity", FloatValue(math.Inf(1))},
		{"+INFINITY", FloatValue(math.Inf(1))},
		{"-Infinity", FloatValue(math.Inf(-1))},
		{"inf", FloatValue(math.Inf(1))},
	} {
		got, err := ParseValue(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseValue(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "x", "1,5", "NaN", "infinite"} {
		if v, err := ParseValue(bad); err == nil {
			t.Errorf("ParseValue(%q) = %v, want an error", bad, v)
		}
	}
}

func TestParseOutput(t *testing.T) {
	out, err := ParseOutput(strings.NewReader("1 0\n\n2\t9223372036854775807\r\n10 infinity\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 3 || out[1] != IntValue(0) || out[2] != IntValue(math.MaxInt64) || !math.IsInf(out[10].Float, 1) {
		t.Fatalf("output %v", out)
	}
	for _, c := range []struct{ in, want string }{
		{"1 2 3\n", "line 1: 3 fields"},
		{"1 2\n1 3\n", "line 2: vertex 1 has more than one value"},
		{"-1 2\n", `line 1: "-1" is not a vertex id`},
		{"9223372036854775808 2\n", "is not a vertex id"},
		{"1 2\n2 two\n", `line 2: "two" is not a number`},
	} {
		if _, err := ParseOutput(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func out(vals ...Value) Output {
	o := Output{}
	for i, v := range vals {
		o[int64(i+1)] = v
	}
	return o
}

func inf(sign int) Value { return FloatValue(math.Inf(sign)) }

func TestValidate(t *testing.T) {
	f, i := FloatValue, IntValue
	for _, c := range []struct {
		name             string
		rule             Rule
		expected, actual Output
		bad              []int64 // nil: valid
	}{
		{"exact", Exact, out(i(1), i(2)), out(i(1), i(2)), nil},
		{"exact int vs float", Exact, out(i(1), i(2)), out(f(1), i(3)), []int64{2}},
		// As float64 the two would be equal.
		{"exact beyond 2^53", Exact, out(i(math.MaxInt64)), out(i(math.MaxInt64 - 1)), []int64{1}},
		{"missing vertex", Exact, out(i(1), i(2)), out(i(1)), []int64{2}},
		{"extra vertex", Epsilon, out(f(1)), out(f(1), f(2)), []int64{2}},
		{"epsilon within", Epsilon, out(f(1), f(1e6), f(0)), out(f(1.0001), f(1e6-100), f(0)), nil},
		{"epsilon beyond", Epsilon, out(f(1), f(1e6)), out(f(1.00011), f(1e6+101)), []int64{1, 2}},
		{"zero matches only zero", Epsilon, out(f(0)), out(f(1e-300)), []int64{1}},
		{"infinity", Epsilon, out(inf(1), inf(-1)), out(inf(1), inf(-1)), nil},
		{"infinity against finite", Epsilon, out(inf(1), f(1), inf(1)), out(f(math.MaxFloat64), inf(1), inf(-1)), []int64{1, 2, 3}},
		{"relabelled", Equivalence, out(i(1), i(1), i(2), i(3)), out(i(7), i(7), i(3), i(1)), nil},
		{"split", Equivalence, out(i(1), i(1), i(2)), out(i(7), i(8), i(9)), []int64{2}},
		{"merged", Equivalence, out(i(1), i(2), i(3)), out(i(7), i(7), i(9)), []int64{2}},
		{"float labels", Equivalence, out(i(1), i(1)), out(f(4), i(4)), nil},
	} {
		err := Validate(c.rule, c.expected, c.actual)
		if c.bad == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var m *Mismatch
		if !errors.As(err, &m) {
			t.Errorf("%s: error %v, want a Mismatch", c.name, err)
			continue
		}
		if !slices.Equal(m.Vertices(), c.bad) {
			t.Errorf("%s: violations %v, want vertices %v", c.name, m, c.bad)
		}
	}
}

func TestMismatchMessage(t *testing.T) {
	e, a := Output{}, Output{}
	for v := range int64(25) {
		e[v], a[v] = IntValue(v), IntValue(v+1)
	}
	msg := Validate(Exact, e, a).Error()
	if !strings.HasPrefix(msg, "25 of 25 vertices violate the exact rule:\n\tvertex 0: expected 0, got 1\n") ||
		!strings.HasSuffix(msg, "vertex 9: expected 9, got 10\n\t… and 15 more") {
		t.Fatalf("message:\n%s", msg)
	}
}

// TestMatching validates the Graphalytics validator's own test vectors
// (matching/ in the reference suite): each *_actual1 file passes its
// rule and each *_actual2 file fails it at the vertices that break it.
func TestMatching(t *testing.T) {
	dir, named := FindDir()
	m := filepath.Join(dir, "matching")
	if _, err := os.Stat(m); err != nil {
		if named {
			t.Fatalf("%s=%s: %v", DirEnv, dir, err)
		}
		t.Logf("Graphalytics validator vectors not checked: no %s (set %s to the reference graphs' folder)", m, DirEnv)
		return
	}
	for _, c := range []struct {
		name string
		rule Rule
		bad  []int64 // the vertices actual2 gets wrong
	}{
		{"exact", Exact, []int64{1, 4}},
		{"epsilon", Epsilon, []int64{1, 3, 4, 5, 6}},
		{"equivalence", Equivalence, []int64{2, 4, 5}},
	} {
		read := func(suffix string) Output {
			o, err := ReadOutput(filepath.Join(m, c.name+"_"+suffix+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			return o
		}
		want := read("expected")
		if err := Validate(c.rule, want, read("actual1")); err != nil {
			t.Errorf("%s_actual1 must pass: %v", c.name, err)
		}
		err := Validate(c.rule, want, read("actual2"))
		var mm *Mismatch
		if !errors.As(err, &mm) || !slices.Equal(mm.Vertices(), c.bad) {
			t.Errorf("%s_actual2 must fail at vertices %v: %v", c.name, c.bad, err)
		}
	}
}
