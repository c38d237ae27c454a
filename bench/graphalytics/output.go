package graphalytics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// Value is one vertex's value in an output: an integer (BFS depth,
// component, community) or a float (rank, coefficient, distance, which
// may be ±Inf). Integers keep all 64 bits: the BFS "unreachable" value
// 9223372036854775807 is not exact as a float64.
type Value struct {
	Int   int64
	Float float64
	IsInt bool
}

// IntValue and FloatValue make Values.
func IntValue(i int64) Value     { return Value{Int: i, Float: float64(i), IsInt: true} }
func FloatValue(f float64) Value { return Value{Float: f} }
func (v Value) String() string {
	if v.IsInt {
		return strconv.FormatInt(v.Int, 10)
	}
	return strconv.FormatFloat(v.Float, 'g', -1, 64)
}

// ParseValue reads an integer, or else a float: decimal or exponent
// form, `infinity`/`inf` in any case with an optional sign.
func ParseValue(s string) (Value, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return IntValue(i), nil
	}
	f, err := strconv.ParseFloat(s, 64) // accepts inf, +Infinity, -INF, …
	if err != nil {
		return Value{}, fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(f) {
		return Value{}, fmt.Errorf("%q: NaN is not a valid output value", s)
	}
	return FloatValue(f), nil
}

// Output maps a vertex id to its value.
type Output map[int64]Value

// Add records v's value; a vertex given twice is an error.
func (o Output) Add(vertex int64, v Value) error {
	if _, dup := o[vertex]; dup {
		return fmt.Errorf("vertex %d has more than one value", vertex)
	}
	o[vertex] = v
	return nil
}

// ReadOutput reads an output file: `vertex value` per line, separated by
// spaces or tabs (blank lines are ignored).
func ReadOutput(path string) (Output, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out, err := ParseOutput(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// ParseOutput reads `vertex value` lines.
func ParseOutput(r io.Reader) (Output, error) {
	out := Output{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: %d fields, want `vertex value`", line, len(f))
		}
		u, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || u > math.MaxInt64 {
			return nil, fmt.Errorf("line %d: %q is not a vertex id (0 … 2^63-1)", line, f[0])
		}
		v, err := ParseValue(f[1])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		if err := out.Add(int64(u), v); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
	}
	return out, sc.Err()
}
