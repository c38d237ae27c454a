package engine_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// hostileSize is the size the generated texts aim at: just under the
// 1 MiB query limit.
const hostileSize = engine.MaxQueryBytes - 64

// fill repeats unit until the text would pass hostileSize, between head
// and tail.
func fill(head, unit, tail string) string {
	n := (hostileSize - len(head) - len(tail)) / len(unit)
	return head + strings.Repeat(unit, n) + tail
}

// joined is head + n items from item(i) separated by sep + tail, as many
// as fit in hostileSize.
func joined(head, sep, tail string, item func(i int) string) string {
	var b strings.Builder
	b.WriteString(head)
	for i := 0; ; i++ {
		it := item(i)
		if b.Len()+len(sep)+len(it)+len(tail) > hostileSize {
			break
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(it)
	}
	b.WriteString(tail)
	return b.String()
}

// hostileQueries are texts of about 1 MiB, one per construct: deep ones
// past every depth limit, long flat ones within them. Each must be
// refused with its code or answered; none may crash, hang or take the
// memory of the server. want is the error code, or "" for success;
// "53200" also accepts success, as the memory a statement needs depends
// on the batch size.
func hostileQueries() []struct{ name, text, want string } {
	i := strconv.Itoa
	return []struct{ name, text, want string }{
		{"+ chain", fill("RETURN 1", "+1", ""), "42000"},
		{"AND chain", fill("RETURN true", " AND true", ""), "42000"},
		{"OR chain", fill("MATCH (n) WHERE n.x = 0", " OR n.x = 1", " RETURN n"), "42000"},
		{"string + chain", fill("RETURN 'a'", "+'a'", ""), "42000"},
		{"comparison chain", fill("RETURN 1", " < 2", ""), "42000"},
		{"property chain", fill("WITH {a: 1} AS m RETURN m", ".a", ""), "42000"},
		{"index chain", fill("WITH [1] AS l RETURN l", "[0]", ""), "42000"},
		{"parentheses", fill("RETURN ", "(", "1"), "42000"},
		{"lists", fill("RETURN ", "[", "1"), "42000"},
		{"maps", fill("RETURN ", "{a:", "1"), "42000"},
		{"NOT", fill("RETURN ", "NOT ", "true"), "42000"},
		{"unary minus", fill("RETURN ", "- ", "1"), "42000"},
		{"CASE", fill("RETURN ", "CASE WHEN true THEN ", "1"), "42000"},
		{"comprehensions", fill("RETURN ", "[x IN ", "[1]"), "42000"},
		{"reduce", fill("RETURN ", "reduce(a = 0, x IN [1] | ", "a"), "42000"},
		{"EXISTS", fill("MATCH (n) WHERE ", "EXISTS { MATCH (n) WHERE ", "true"), "42000"},
		{"pattern comprehensions", fill("MATCH (n) RETURN ", "[(n)-->(m) | ", "1"), "42000"},
		{"WITH chain", fill("WITH 1 AS x ", "WITH x ", "RETURN x"), "42000"},
		{"UNWIND chain", joined("", " ", " RETURN 1", func(k int) string { return "UNWIND [1] AS u" + i(k) }), "42000"},
		{"UNION chain", fill("RETURN 1 AS x", " UNION RETURN 1 AS x", ""), "42000"},
		{"hops", joined("MATCH (a0)", "", " RETURN count(*)", func(k int) string { return "-->(a" + i(k+1) + ")" }), "42000"},
		{"patterns", joined("MATCH ", ", ", " RETURN 1", func(k int) string { return "(n" + i(k) + ")" }), "42000"},
		{"MERGE chain", fill("MERGE (:A)", "-[:R]->(:A)", ""), "42000"},
		{"query too long", strings.Repeat(" ", engine.MaxQueryBytes) + "RETURN 1", "22000"},
		// Flat: linear work, within the limits. Those that build a row
		// of thousands of columns or values answer or stop at the
		// memory limit (53200), as their size decides.
		{"list literal", fill("RETURN size([1", ",1", "])"), ""},
		{"IN list", fill("MATCH (n) WHERE n.x IN [1", ",1", "] RETURN n"), ""},
		{"map literal", joined("RETURN size(keys({", ",", "}))", func(k int) string { return "k" + i(k) + ":1" }), ""},
		{"string literal", fill("RETURN size('", "a", "')"), ""},
		{"identifier", "WITH 1 AS " + strings.Repeat("v", hostileSize-30) + " RETURN 1", ""},
		{"comment", fill("RETURN 1 /*", " ", "*/"), ""},
		{"function arguments", fill("RETURN coalesce(null", ",1", ")"), "42000"}, // at most 65536
		{"CASE branches", fill("RETURN CASE 1", " WHEN 2 THEN 3", " ELSE 4 END"), ""},
		{"labels", fill("MATCH (n:A", ":A", ") RETURN n"), ""},
		{"label disjunction", fill("MATCH (n) WHERE n:A", "|A", " RETURN n"), ""},
		{"label bars in comprehensions", joined("MATCH (n) RETURN [", ", ", "]", func(int) string { return "[x IN [n] WHERE x:A|B | x]" }), ""},
		{"relationship types", joined("MATCH ()-[r:T0", "|", "]->() RETURN r", func(k int) string { return "T" + i(k+1) }), ""},
		{"pattern properties", joined("MATCH (n {", ", ", "}) RETURN n", func(k int) string { return "p" + i(k) + ": 1" }), ""},
		{"map projection", joined("MATCH (n) RETURN n {", ", ", "}", func(k int) string { return ".p" + i(k) }), ""},
		{"ORDER BY keys", fill("UNWIND [1] AS x RETURN x ORDER BY x", ", x", ""), ""},
		{"list of parameters", joined("RETURN size([", ", ", "])", func(k int) string { return "$p" + i(k%100) }), "22023"},
		// Each anonymous node of a CREATE is a column of its operators.
		{"CREATE chain", fill("CREATE (:A)", "-[:R]->(:A)", ""), "53200"},
		{"CREATE list", fill("CREATE (:A)", ", (:A)", ""), "53200"},
		{"SET items", joined("CREATE (n:A) SET ", ", ", "", func(k int) string { return "n.p" + i(k) + " = 1" }), ""},
		{"return items", joined("RETURN ", ", ", "", func(k int) string { return "1 AS c" + i(k) }), "53200"},
		{"UNWIND list", fill("UNWIND [1", ",1", "] AS x RETURN count(x)"), ""},
	}
}

// Every construct at 1 MiB gets an answer: a clean error with the right
// code, or its result. A crash (stack overflow) would end the test
// binary; a hang meets the statement's own deadline, which covers
// planning, and then the test's.
func TestHostileQueryTexts(t *testing.T) {
	db, err := engine.Open("", engine.Options{QueryTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range hostileQueries() {
		start := time.Now()
		res, err := db.Query(context.Background(), c.text, nil)
		if err == nil {
			_, err = drain(res)
		}
		elapsed := time.Since(start)
		got := ""
		if err != nil {
			e, ok := engine.AsError(err)
			if !ok {
				t.Errorf("%s: %v is not an engine error", c.name, err)
				continue
			}
			got = e.Code
		}
		if got != c.want && !(c.want == "53200" && got == "") {
			t.Errorf("%s (%d bytes): code %q (%v), want %q", c.name, len(c.text), got, err, c.want)
		}
		t.Logf("%-22s %8d bytes %8.1f ms %s", c.name, len(c.text), float64(elapsed.Microseconds())/1000, got)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

// A statement's deadline covers parsing and planning: a text that takes
// long to prepare stops at it with 40003.
func TestPrepareRunsUnderTheDeadline(t *testing.T) {
	db, err := engine.Open("", engine.Options{QueryTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	text := fill("RETURN size([1", ",1", "])")
	_, err = db.Query(context.Background(), text, nil)
	if e, ok := engine.AsError(err); !ok || e.Code != "40003" {
		t.Fatalf("err = %v, want 40003", err)
	}
}

// BenchmarkPrepareHostile times each 1 MiB construct end to end (most of
// it is preparing; refused ones stop in the parser).
func BenchmarkPrepareHostile(b *testing.B) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, c := range hostileQueries() {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				res, err := db.Query(context.Background(), c.text, nil)
				if err == nil {
					drain(res)
				}
			}
		})
	}
}
