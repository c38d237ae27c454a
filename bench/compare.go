package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Rows is a query answer: rows of cells, each cell normalised by Normalize
// to nil, bool, string, int64, float64 or a list ([]any) of those.
type Rows [][]any

// Normalize maps an engine's cell value to the comparable form: every
// number that is integral and fits becomes int64, other numbers float64.
// Both engines' integers therefore compare equal whether they came as Go
// int64 (embedded Quiver) or JSON numbers (HTTP, Kùzu).
func Normalize(v any) any {
	switch x := v.(type) {
	case nil, bool, string:
		return x
	case int64:
		return x
	case int:
		return int64(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
		return x
	case []any: // a list (JSON array: Quiver over HTTP, Kùzu, DuckDB)
		out := make([]any, len(x))
		for i, c := range x {
			out[i] = Normalize(c)
		}
		return out
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return string(x)
		}
		return Normalize(f)
	default:
		return fmt.Sprint(x)
	}
}

// Compare checks that two engines' answers to q agree. Unordered answers
// (one row here) must be equal cell by cell. A TopK answer is ordered by
// one key column with ties, and LIMIT may cut a group of ties anywhere, so
// the rows are split into groups of equal keys: the groups' keys and sizes
// must agree in order, every group must hold the same rows as a multiset,
// except that the last group of a full answer (len == limit) may hold
// different members of the same tie.
func Compare(q Query, quiver, kuzu Rows) error {
	return ComparePeer(q, "Kùzu", quiver, kuzu)
}

// ComparePeer is Compare against the answer of the engine named peer
// (Kùzu or DuckDB), the name used in the messages.
func ComparePeer(q Query, peer string, quiver, other Rows) error {
	pad := strings.Repeat(" ", max(0, len([]rune("Quiver"))-len([]rune(peer))))
	if len(quiver) != len(other) {
		return fmt.Errorf("%s: Quiver returned %d rows, %s %d\nQuiver: %v\n%s:%s %v", q.Name, len(quiver), peer, len(other), quiver, peer, pad, other)
	}
	if q.Ordered {
		for i := range quiver {
			if !rowEqual(quiver[i], other[i]) {
				return fmt.Errorf("%s: row %d differs\nQuiver: %v\n%s:%s %v", q.Name, i, quiver, peer, pad, other)
			}
		}
		return nil
	}
	if q.TopK == nil {
		a, b := sortRows(quiver), sortRows(other)
		for i := range a {
			if !rowEqual(a[i], b[i]) {
				return fmt.Errorf("%s: answers differ\nQuiver: %v\n%s:%s %v", q.Name, quiver, peer, pad, other)
			}
		}
		return nil
	}
	ga, gb := groups(quiver, q.TopK.Key), groups(other, q.TopK.Key)
	if len(ga) != len(gb) {
		return fmt.Errorf("%s: tie groups differ\nQuiver: %v\n%s:%s %v", q.Name, quiver, peer, pad, other)
	}
	full := len(quiver) == q.TopK.Limit
	for i := range ga {
		if len(ga[i]) != len(gb[i]) || !cellEqual(ga[i][0][q.TopK.Key], gb[i][0][q.TopK.Key]) {
			return fmt.Errorf("%s: group %d differs\nQuiver: %v\n%s:%s %v", q.Name, i, quiver, peer, pad, other)
		}
		if full && i == len(ga)-1 {
			break // a tie cut by LIMIT: any members will do
		}
		a, b := sortRows(ga[i]), sortRows(gb[i])
		for j := range a {
			if !rowEqual(a[j], b[j]) {
				return fmt.Errorf("%s: rows of tie group %d differ\nQuiver: %v\n%s:%s %v", q.Name, i, quiver, peer, pad, other)
			}
		}
	}
	return nil
}

// groups splits rows into runs of equal key.
func groups(rows Rows, key int) []Rows {
	var out []Rows
	for i, r := range rows {
		if i == 0 || !cellEqual(rows[i-1][key], r[key]) {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

// sortRows orders a copy of rows by their non-float cells, so that rows
// equal up to float rounding land at the same index.
func sortRows(rows Rows) Rows {
	s := append(Rows(nil), rows...)
	key := func(r []any) string {
		var b strings.Builder
		for _, c := range r {
			if _, f := c.(float64); !f {
				fmt.Fprintf(&b, "%T:%v\x00", c, c)
			}
		}
		return b.String()
	}
	sort.SliceStable(s, func(i, j int) bool { return key(s[i]) < key(s[j]) })
	return s
}

func rowEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !cellEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// cellEqual compares normalised cells; floats (averages) agree to a
// relative 1e-9, the difference summation order makes.
func cellEqual(a, b any) bool {
	fa, aF := a.(float64)
	fb, bF := b.(float64)
	ia, aI := a.(int64)
	ib, bI := b.(int64)
	switch {
	case aF && bF:
		return math.Abs(fa-fb) <= 1e-9*math.Max(1, math.Max(math.Abs(fa), math.Abs(fb)))
	case aF && bI:
		return cellEqual(fa, float64(ib))
	case aI && bF:
		return cellEqual(float64(ia), fb)
	}
	la, aL := a.([]any)
	lb, bL := b.([]any)
	if aL || bL {
		return aL && bL && rowEqual(la, lb)
	}
	return a == b
}
