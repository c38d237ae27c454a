package gql

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
)

// deepConstructs builds, for a size n, texts whose tree height grows with
// n: nesting and left-deep operator chains of every kind.
var deepConstructs = map[string]func(n int) string{
	"parentheses": func(n int) string { return "RETURN " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) },
	"lists":       func(n int) string { return "RETURN " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) },
	"maps":        func(n int) string { return "RETURN " + strings.Repeat("{a:", n) + "1" + strings.Repeat("}", n) },
	"NOT":         func(n int) string { return "RETURN " + strings.Repeat("NOT ", n) + "true" },
	"unary minus": func(n int) string { return "RETURN " + strings.Repeat("- ", n) + "x" },
	"CASE": func(n int) string {
		return "RETURN " + strings.Repeat("CASE WHEN true THEN ", n) + "1" + strings.Repeat(" END", n)
	},
	"comprehensions": func(n int) string {
		return "RETURN " + strings.Repeat("[x IN ", n) + "[1]" + strings.Repeat(" | x]", n)
	},
	"EXISTS": func(n int) string {
		return "MATCH (n) WHERE " + strings.Repeat("EXISTS { MATCH (n) WHERE ", n) + "true" + strings.Repeat(" }", n) + " RETURN n"
	},
	"OPTIONAL blocks": func(n int) string {
		return "MATCH (n) " + strings.Repeat("OPTIONAL { MATCH (n) ", n) + strings.Repeat(" }", n) + " RETURN n"
	},
	"COUNT": func(n int) string {
		return "RETURN " + strings.Repeat("COUNT { MATCH (n) WHERE ", n) + "true" + strings.Repeat(" }", n)
	},
	"CALL": func(n int) string {
		return "UNWIND [1] AS x " + strings.Repeat("CALL { ", n) + "RETURN 1 AS y" + strings.Repeat(" }", n) + " RETURN y"
	},
	"+ chain":     func(n int) string { return "RETURN 1" + strings.Repeat(" + 1", n) },
	"- chain":     func(n int) string { return "RETURN 1" + strings.Repeat(" - 1", n) },
	"* chain":     func(n int) string { return "RETURN 1" + strings.Repeat(" * 1", n) },
	"^ chain":     func(n int) string { return "RETURN 1" + strings.Repeat(" ^ 1", n) },
	"AND chain":   func(n int) string { return "RETURN true" + strings.Repeat(" AND true", n) },
	"OR chain":    func(n int) string { return "RETURN false" + strings.Repeat(" OR false", n) },
	"XOR chain":   func(n int) string { return "RETURN false" + strings.Repeat(" XOR false", n) },
	"comparisons": func(n int) string { return "RETURN 1" + strings.Repeat(" < 2", n) },
	"STARTS WITH": func(n int) string { return "RETURN 'a'" + strings.Repeat(" STARTS WITH 'a'", n) },
	"IS NULL":     func(n int) string { return "RETURN 1" + strings.Repeat(" IS NULL", n) },
	"string +":    func(n int) string { return "RETURN 'a'" + strings.Repeat(" + 'a'", n) },
	"properties":  func(n int) string { return "RETURN m" + strings.Repeat(".a", n) },
	"indexes":     func(n int) string { return "RETURN l" + strings.Repeat("[0]", n) },
	"slices":      func(n int) string { return "RETURN l" + strings.Repeat("[0..1]", n) },
	"label tests": func(n int) string { return "RETURN n" + strings.Repeat(":A.a", n) },
	// Short chains, each the first operand of the next: every chain's
	// links are levels above the one inside it, though the parser has
	// left those before it reads the next (a tree of 1200 levels that
	// never went past 130 at once once passed, and binding it took
	// minutes).
	"chains in first operands": func(n int) string {
		k := max(n/10, 1)
		return "RETURN " + strings.Repeat("(", k) + "1" + strings.Repeat(strings.Repeat(" + 1", 9)+")", k)
	},
	"postfix on chains": func(n int) string {
		k := max(n/10, 1)
		return "RETURN " + strings.Repeat("(", k) + "m" + strings.Repeat(strings.Repeat(".a", 9)+")", k)
	},
	"list types": func(n int) string {
		return "RETURN x :: " + strings.Repeat("LIST<", n) + "INTEGER" + strings.Repeat(">", n)
	},
	"postfix list types": func(n int) string { return "RETURN x :: INTEGER" + strings.Repeat(" LIST", n) },
	"type predicates":    func(n int) string { return "RETURN 1" + strings.Repeat(" :: BOOLEAN", n) },
	"CAST": func(n int) string {
		return "RETURN " + strings.Repeat("CAST(", n) + "1" + strings.Repeat(" AS INTEGER)", n)
	},
	"mixed": func(n int) string {
		return "RETURN " + strings.Repeat("(1 + [", n/3) + "1" + strings.Repeat("][0])", n/3)
	},
	"label bars in comprehensions": func(n int) string {
		return "RETURN " + strings.Repeat("[x IN l WHERE x:A|B | ", n) + "x" + strings.Repeat("]", n)
	},
	"reduce": func(n int) string {
		return "RETURN " + strings.Repeat("reduce(a = 0, x IN [1] | ", n) + "a" + strings.Repeat(")", n)
	},
}

// Every construct parses up to close to MaxDepth and is refused past it
// with a positioned 42000-class syntax error, whatever the size of the
// text (a million levels must not overflow the stack).
func TestDepthIsBounded(t *testing.T) {
	for name, gen := range deepConstructs {
		// Under the limit: the statement's own levels (the projection,
		// the outermost expression) take a few of its levels.
		if _, err := Parse(gen(MaxDepth/2 - 2)); err != nil {
			t.Errorf("%s at half the limit: %v", name, err)
		}
		for _, n := range []int{MaxDepth + 1, 100 * MaxDepth, 1_000_000} {
			_, err := Parse(gen(n))
			se, ok := errs.As(err)
			if !ok || se.Code != errs.CodeSyntax || !strings.Contains(se.Message, fmt.Sprint(MaxDepth)) || se.Position.Line != 1 || se.Position.Column < 8 {
				t.Errorf("%s at %d levels: %v, want a syntax error naming the limit %d", name, n, err, MaxDepth)
			}
		}
	}
}

// The limit counts levels exactly for a chain: n links are n levels.
func TestDepthLimitIsExact(t *testing.T) {
	// RETURN's expression is one level, a chain of k operators k more.
	if _, err := Parse("RETURN 1" + strings.Repeat("+1", MaxDepth-1)); err != nil {
		t.Errorf("a chain at the limit: %v", err)
	}
	if _, err := Parse("RETURN 1" + strings.Repeat("+1", MaxDepth)); err == nil {
		t.Error("a chain one past the limit was accepted")
	}
	// Long but flat is fine: a 200 000-element list, a 50 000-item RETURN.
	if _, err := Parse("RETURN [" + strings.TrimSuffix(strings.Repeat("1,", 200000), ",") + "]"); err != nil {
		t.Errorf("a long list: %v", err)
	}
	items := make([]string, 50000)
	for i := range items {
		items[i] = fmt.Sprintf("%d AS c%d", i, i)
	}
	if _, err := Parse("RETURN " + strings.Join(items, ", ")); err != nil {
		t.Errorf("many return items: %v", err)
	}
}

// Clauses and reading pattern elements are bounded per statement; CREATE
// patterns are not.
func TestClausesAndPatternsAreBounded(t *testing.T) {
	withs := func(n int) string { return "WITH 1 AS x " + strings.Repeat("WITH x ", n-2) + "RETURN x" }
	unions := func(n int) string { return "RETURN 1 AS x" + strings.Repeat(" UNION RETURN 1 AS x", n-1) }
	hops := func(n int) string { return "MATCH ()" + strings.Repeat("-->()", (n-1)/2) + " RETURN 1" }
	patterns := func(n int) string { return "MATCH ()" + strings.Repeat(", ()", n-1) + " RETURN 1" }
	merges := func(n int) string { return "MERGE (:A)" + strings.Repeat("-[:R]->(:A)", (n-1)/2) }
	for name, c := range map[string]struct {
		gen   func(int) string
		limit int
	}{
		"WITH clauses": {withs, MaxClauses}, "UNION arms": {unions, MaxClauses},
		"hops": {hops, MaxPatternElements}, "patterns": {patterns, MaxPatternElements}, "MERGE": {merges, MaxPatternElements},
	} {
		if _, err := Parse(c.gen(c.limit)); err != nil {
			t.Errorf("%s at the limit: %v", name, err)
		}
		for _, n := range []int{c.limit + 2, 100 * c.limit} {
			_, err := Parse(c.gen(n))
			if se, ok := errs.As(err); !ok || !strings.Contains(se.Message, fmt.Sprint(c.limit)) {
				t.Errorf("%s at %d: %v, want an error naming the limit %d", name, n, err, c.limit)
			}
		}
	}
	// A pattern predicate a parser only looked ahead at is not counted.
	if _, err := Parse("MATCH ()" + strings.Repeat("-->()", MaxPatternElements/2-1) + " WHERE (1) + (2) > 0 RETURN 1"); err != nil {
		t.Errorf("lookahead counted: %v", err)
	}
	// CREATE patterns are as long as the text allows.
	if _, err := Parse("CREATE (:A)" + strings.Repeat("-[:R]->(:A)", 10*MaxPatternElements)); err != nil {
		t.Errorf("a long CREATE: %v", err)
	}
	if _, err := Parse("CREATE (:A)" + strings.Repeat(", (:A)", 10*MaxPatternElements)); err != nil {
		t.Errorf("a wide CREATE: %v", err)
	}
}

// A label test's "|" in a comprehension looks ahead for the projection's
// bar; nested comprehensions must not each scan the rest of the text
// again. The cancellation polls count the tokens read, look-ahead
// included: with label bars no more than a few times as many as the same
// text with a comparison instead (a rescan per level is ~25 times).
func TestComprehensionBarsAreLinear(t *testing.T) {
	polls := func(label string) int {
		nested := strings.Repeat("[x IN l WHERE x.a > 0 AND "+label+" | [1, 2, 3] + ", 100) + "x" + strings.Repeat("]", 100)
		groups := make([]string, 50)
		for i := range groups {
			groups[i] = nested
		}
		n := 0
		if _, err := ParseCancel("RETURN ["+strings.Join(groups, ", ")+"]", func() error { n++; return nil }); err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		return n
	}
	flat, bars := polls("x.b = 1"), polls("x:A|B")
	if flat < 10 || bars > 3*flat {
		t.Errorf("polls: %d with x:A|B, %d with x.b = 1: the look-ahead is not linear", bars, flat)
	}
}

// ParseCancel gives up with the cancellation's error once it reports one.
func TestParseCancel(t *testing.T) {
	stop := errors.New("deadline")
	calls := 0
	_, err := ParseCancel("RETURN ["+strings.TrimSuffix(strings.Repeat("1,", 100000), ",")+"]", func() error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Errorf("err = %v after %d polls, want the cancellation after 3", err, calls)
	}
}

// The canonical form of a statement at the depth limit parses again to
// the same form: printing must not add levels (or the fuzz target's
// round trip, and EXPLAIN of a deep query, would break).
func TestDeepStatementsRoundTrip(t *testing.T) {
	for name, gen := range deepConstructs {
		for n := MaxDepth/2 - 2; n > 0; n /= 2 {
			st, err := Parse(gen(n))
			if err != nil {
				continue // shorter ones of the constructs that take several levels a step
			}
			canon := st.String()
			again, err := Parse(canon)
			if err != nil {
				t.Errorf("%s at %d: the canonical form does not parse: %v", name, n, err)
			} else if again.String() != canon {
				t.Errorf("%s at %d: the canonical form is not stable", name, n)
			}
			break
		}
	}
	for _, q := range []string{
		"RETURN 1" + strings.Repeat(" + 1", MaxDepth-2),
		"RETURN 1" + strings.Repeat(" - 1", MaxDepth-2),
		"RETURN true" + strings.Repeat(" AND true", MaxDepth-2),
		"RETURN m" + strings.Repeat(".a", MaxDepth-2),
	} {
		st, err := Parse(q)
		if err != nil {
			t.Fatalf("%.30s…: %v", q, err)
		}
		if again, err := Parse(st.String()); err != nil || again.String() != st.String() {
			t.Errorf("%.30s… at the limit: the canonical form does not round-trip: %v", q, err)
		}
	}
}
