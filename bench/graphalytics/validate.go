package graphalytics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Rule is how an algorithm's output is compared with the reference.
type Rule int

const (
	// Exact: every value equal (BFS, CDLP).
	Exact Rule = iota
	// Equivalence: equal up to a bijection between the labels: two
	// vertices share a label in one output exactly when they share one
	// in the other (WCC).
	Equivalence
	// Epsilon: |actual − expected| ≤ 1e-4·|expected|, so 0 matches only
	// 0, and an infinity only the same infinity (PR, LCC, SSSP).
	Epsilon
)

// Tolerance is Epsilon's relative error bound.
const Tolerance = 1e-4

func (r Rule) String() string {
	switch r {
	case Exact:
		return "exact"
	case Equivalence:
		return "equivalence"
	}
	return "epsilon"
}

// maxReported bounds the violations a Mismatch's message lists.
const maxReported = 10

// Mismatch is a failed validation: the vertices that violate the rule
// (or are in one vertex set only), in vertex order, each with what is
// wrong.
type Mismatch struct {
	Head       string
	Violations []Violation
}

// Violation is one vertex that fails validation.
type Violation struct {
	Vertex int64
	Msg    string
}

func (m *Mismatch) Error() string {
	var b strings.Builder
	b.WriteString(m.Head)
	b.WriteString(":")
	for i, v := range m.Violations {
		if i == maxReported {
			fmt.Fprintf(&b, "\n\t… and %d more", len(m.Violations)-maxReported)
			break
		}
		fmt.Fprintf(&b, "\n\tvertex %d: %s", v.Vertex, v.Msg)
	}
	return b.String()
}

// Vertices lists the violating vertices.
func (m *Mismatch) Vertices() []int64 {
	out := make([]int64, len(m.Violations))
	for i, v := range m.Violations {
		out[i] = v.Vertex
	}
	return out
}

// Validate compares actual with expected under rule; a failure is a
// *Mismatch.
func Validate(rule Rule, expected, actual Output) error {
	var bad []Violation
	var missing, extra int
	for _, v := range sortedVertices(expected) {
		if _, ok := actual[v]; !ok {
			missing++
			bad = append(bad, Violation{v, fmt.Sprintf("missing (expected %s)", expected[v])})
		}
	}
	for _, v := range sortedVertices(actual) {
		if _, ok := expected[v]; !ok {
			extra++
			bad = append(bad, Violation{v, fmt.Sprintf("not in the reference (got %s)", actual[v])})
		}
	}
	if missing+extra > 0 {
		slices.SortStableFunc(bad, func(a, b Violation) int { return cmp.Compare(a.Vertex, b.Vertex) })
		return &Mismatch{fmt.Sprintf("vertex sets differ (%d missing, %d extra)", missing, extra), bad}
	}
	switch rule {
	case Exact, Epsilon:
		for _, v := range sortedVertices(expected) {
			e, a := expected[v], actual[v]
			ok := equal(e, a)
			if rule == Epsilon {
				ok = near(e.Float, a.Float)
			}
			if !ok {
				bad = append(bad, Violation{v, fmt.Sprintf("expected %s, got %s", e, a)})
			}
		}
	case Equivalence:
		bad = relabelling(expected, actual)
	}
	if len(bad) > 0 {
		return &Mismatch{fmt.Sprintf("%d of %d vertices violate the %s rule", len(bad), len(expected), rule), bad}
	}
	return nil
}

// equal compares two values exactly: as integers when both are, else as
// floats.
func equal(e, a Value) bool {
	if e.IsInt && a.IsInt {
		return e.Int == a.Int
	}
	return e.Float == a.Float
}

// near is the Epsilon rule for one value.
func near(e, a float64) bool {
	if math.IsInf(e, 0) || math.IsInf(a, 0) {
		return e == a
	}
	return math.Abs(a-e) <= Tolerance*math.Abs(e)
}

// relabelling checks that a bijection maps expected labels to actual
// ones; it reports the vertices whose label breaks the mapping built
// from the vertices before them (in vertex order).
func relabelling(expected, actual Output) []Violation {
	var bad []Violation
	fwd := map[Value]Value{}     // expected label → actual label
	back := map[Value]Value{}    // actual label → expected label
	first := map[Value]int64{}   // actual label → the vertex that mapped it
	key := func(v Value) Value { // an integral float label is the integer
		if !v.IsInt && v.Float == math.Trunc(v.Float) && math.Abs(v.Float) < 1<<63 {
			return IntValue(int64(v.Float))
		}
		return v
	}
	for _, v := range sortedVertices(expected) {
		e, a := key(expected[v]), key(actual[v])
		fa, okF := fwd[e]
		be, okB := back[a]
		switch {
		case okF && fa != a:
			bad = append(bad, Violation{v, fmt.Sprintf("label %s, but the vertices labelled %s in the reference are labelled %s", a, e, fa)})
		case okB && be != e:
			bad = append(bad, Violation{v, fmt.Sprintf("label %s is also vertex %d's, which the reference labels %s, not %s", a, first[a], be, e)})
		case !okF && !okB:
			fwd[e], back[a], first[a] = a, e, v
		}
	}
	return bad
}

func sortedVertices(o Output) []int64 {
	vs := make([]int64, 0, len(o))
	for v := range o {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	return vs
}
