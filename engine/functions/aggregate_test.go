package functions

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAggregateRecipe holds contributing.md's "An aggregate" to its
// steps: every aggregate of the catalog is complete (a state, a result
// type, its documented spelling), has a row in docs/functions.md's
// table of aggregates and at least one corpus case calling it.
func TestAggregateRecipe(t *testing.T) {
	doc, err := os.ReadFile("../../docs/functions.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "\n## Aggregates\n")
	if !ok {
		t.Fatal("docs/functions.md has no Aggregates section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	corpus, err := filepath.Glob("../../testdata/*.test")
	if err != nil || len(corpus) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	var cases strings.Builder
	for _, f := range corpus {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cases.Write(b)
	}
	all := strings.ToLower(cases.String())
	aggs := Aggregates()
	if len(aggs) < 12 {
		t.Fatalf("the catalog holds %d aggregates", len(aggs))
	}
	for _, a := range aggs {
		if strings.ToLower(a.Spelling) != a.Name || a.Sig == "" || a.Doc == "" {
			t.Errorf("%s: spelling %q, signature %q, doc %q", a.Name, a.Spelling, a.Sig, a.Doc)
		}
		if st := a.New(nil); st == nil {
			t.Errorf("%s: no state", a.Name)
		}
		if _, scalar := Lookup(a.Name); scalar {
			t.Errorf("%s is both a scalar function and an aggregate", a.Name)
		}
		if !tableNames(table, a.Spelling) {
			t.Errorf("docs/functions.md lists no aggregate %s", a.Spelling)
		}
		if !strings.Contains(all, a.Name+"(") {
			t.Errorf("no corpus case (testdata/*.test) calls %s()", a.Spelling)
		}
	}
}

// tableNames reports whether a row of a markdown table names name in
// its first cell (`min`, `max`).
func tableNames(table, name string) bool {
	for _, line := range strings.Split(table, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 2 && strings.Contains(cells[1], "`"+name+"`") {
			return true
		}
	}
	return false
}
