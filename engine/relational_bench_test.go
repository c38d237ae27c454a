package engine

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// BenchmarkRelational times the wider suite's relational shapes (W29, W31, W34–W40,
// bench/suite_wide.go) with the rule that serves each (topk-bar, typed-sort,
// code-distinct, equi-join, code-match, count-filter) on and off, on an imported graph shaped as the
// bench generator's at S: 100k persons with one of 256 names, an age and
// one of 200 skewed cities, and 1M random KNOWS relationships.
func BenchmarkRelational(b *testing.B) {
	db := relationalBenchDB(b, 100_000, 1_000_000)
	for _, q := range []struct{ name, rule, text string }{
		{"W34-topk", "typed-sort", "MATCH (p:Person) RETURN p.id, p.age ORDER BY p.age DESC, p.id LIMIT 10"},
		{"W29-topk-bar", "topk-bar", "MATCH (p:Person) RETURN p.id, p.age, p.city ORDER BY p.age DESC, p.city, p.id LIMIT 20"},
		{"W31-count-distinct", "code-distinct", "MATCH (p:Person) RETURN count(DISTINCT p.name)"},
		{"W35-skip", "typed-sort", "MATCH (p:Person) RETURN p.name ORDER BY p.name SKIP 50000 LIMIT 10"},
		{"sort-all", "typed-sort", "MATCH (p:Person) RETURN p.name, p.id ORDER BY p.name, p.id"},
		{"sort-int", "typed-sort", "MATCH (p:Person) RETURN p.age, p.id ORDER BY p.age, p.id DESC"},
		{"W36-join", "equi-join", "MATCH (a:Person {id: 42}), (b:Person) WHERE b.age = a.age AND b.city = a.city AND b <> a RETURN count(*)"},
		{"W38-prefix", "code-match", "MATCH (p:Person) WHERE p.name STARTS WITH 'Ada' AND p.age >= 30 AND p.age < 40 RETURN count(*)"},
		{"W39-contains", "code-match", "MATCH (p:Person) WHERE p.name CONTAINS 'ove' RETURN count(*)"},
		{"W11-group-both-ends", "", "MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN a.city, b.city, count(*) AS n ORDER BY n DESC LIMIT 10"},
		{"W40-2hop", "count-filter", "MATCH (a:Person)-[:KNOWS]->(b:Person)-[:KNOWS]->(c:Person) WHERE a.age = 30 AND c.city = 'City001' RETURN count(*)"},
	} {
		for _, off := range []bool{false, true} {
			if off && q.rule == "" {
				continue
			}
			name := q.name + "/rule-on"
			if off {
				name = q.name + "/rule-off"
			}
			b.Run(name, func(b *testing.B) {
				defer func() { db.opts.DisabledRules = nil }()
				db.opts.DisabledRules = nil
				if off {
					db.opts.DisabledRules = []string{q.rule}
				}
				for b.Loop() {
					runToEnd(b, db, q.text)
				}
			})
		}
	}
}

// relationalBenchDB imports n persons (id, name, age, city) and m random
// KNOWS relationships.
func relationalBenchDB(b *testing.B, n, m int) *DB {
	in := b.TempDir()
	rng := rand.New(rand.NewPCG(3, 4))
	write := func(name string, fill func(w *bufio.Writer)) string {
		return writeBenchCSV(b, in, name, fill)
	}
	first := []string{"Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Tony", "Dennis"}
	last := []string{"Allen", "Backus", "Codd", "Dijkstra", "Gray", "Hamilton", "Hoare", "Hopper", "Knuth", "Lamport", "Liskov", "Lovelace", "Perlman", "Ritchie", "Thompson", "Wirth"}
	persons := write("persons.csv", func(w *bufio.Writer) {
		fmt.Fprintln(w, "id:INT64,name:STRING,age:INT64,city:STRING")
		for i := range n {
			fmt.Fprintf(w, "%d,%s %s,%d,City%03d\n", i, first[rng.IntN(16)], last[rng.IntN(16)], 18+rng.IntN(63), min(rng.IntN(200), rng.IntN(200)))
		}
	})
	knows := write("knows.csv", func(w *bufio.Writer) {
		fmt.Fprintln(w, "from,to")
		for range m {
			fmt.Fprintf(w, "%d,%d\n", rng.IntN(n), rng.IntN(n))
		}
	})
	dir := filepath.Join(b.TempDir(), "data")
	if _, err := Import(ImportOptions{Dir: dir, Nodes: []ImportInput{{Name: "Person", Path: persons}},
		Rels: []ImportInput{{Name: "KNOWS", Path: knows}}}); err != nil {
		b.Fatal(err)
	}
	db, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}
