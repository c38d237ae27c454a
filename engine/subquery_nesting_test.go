package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Nested subqueries bind and run in time linear in their depth: an
// aggregating projection item binds its expressions twice, and a keyless
// aggregate's subquery binds an empty plan, so a subquery in either at
// every level would cost 2^depth if each bound its nested ones again.
// Forty levels of each answer at once (2^40 bindings would never).
func TestNestedSubqueriesBindLinearly(t *testing.T) {
	db := openTestDB(t)
	const depth = 40
	count := func() string {
		var sb strings.Builder
		sb.WriteString("RETURN ")
		for i := range depth {
			fmt.Fprintf(&sb, "COUNT { UNWIND [1, 2] AS x%d RETURN count(*) + ", i)
		}
		sb.WriteString("0" + strings.Repeat(" AS c }", depth) + " AS c")
		return sb.String()
	}
	call := func() string {
		var sb strings.Builder
		sb.WriteString("UNWIND [1, 2] AS x ")
		for i := range depth {
			fmt.Fprintf(&sb, "CALL () { UNWIND [1] AS y%d ", i)
		}
		sb.WriteString("RETURN count(*) AS c" + strings.Repeat(" } RETURN count(*) AS c", depth-1) + " } RETURN x, c")
		return sb.String()
	}
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		// Every level's query yields one row (a keyless aggregate), so
		// the outermost COUNT is 1.
		{"COUNT in aggregating items", count(), []string{"1"}},
		// Each level returns one row (the count of its one row joined
		// with the one row of the level below), so every x gets c = 1.
		// (Two rows a level would run the levels below 2^depth times:
		// the query's own work, not binding's.)
		{"CALL with keyless aggregates", call(), []string{"1 | 1", "2 | 1"}},
	} {
		start := time.Now()
		res, err := db.Query(context.Background(), c.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rows, err := drain(res)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s: took %v", c.name, took)
		}
		if strings.Join(rows, ";") != strings.Join(c.want, ";") {
			t.Errorf("%s: rows %v, want %v", c.name, rows, c.want)
		}
	}
}
