package engine

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// BenchmarkCodeCall times string functions of dictionary-coded STRING
// properties over 1M imported nodes (name: 256 values, city: 200) with
// rule code-call on (each function once per dictionary entry) and off
// (once per row).
func BenchmarkCodeCall(b *testing.B) {
	const n = 1 << 20
	in := b.TempDir()
	rng := rand.New(rand.NewPCG(7, 8))
	first := []string{"Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace", "John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Tony", "Dennis"}
	last := []string{"Allen", "Backus", "Codd", "Dijkstra", "Gray", "Hamilton", "Hoare", "Hopper", "Knuth", "Lamport", "Liskov", "Lovelace", "Perlman", "Ritchie", "Thompson", "Wirth"}
	persons := writeBenchCSV(b, in, "persons.csv", func(w *bufio.Writer) {
		fmt.Fprintln(w, "id:INT64,name:STRING,city:STRING")
		for i := range n {
			fmt.Fprintf(w, "%d,%s %s,City%03d\n", i, first[rng.IntN(16)], last[rng.IntN(16)], rng.IntN(200))
		}
	})
	dir := filepath.Join(b.TempDir(), "data")
	if _, err := Import(ImportOptions{Dir: dir, Nodes: []ImportInput{{Name: "Person", Path: persons}}}); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, text string }{
		{"group-lower", "MATCH (p:Person) RETURN toLower(p.name) AS x, count(*)"},
		{"sum-size", "MATCH (p:Person) RETURN sum(size(p.city))"},
		{"filter-upper", "MATCH (p:Person) WHERE toUpper(p.name) = 'GRACE HOPPER' RETURN count(*)"},
		{"project-substring", "MATCH (p:Person) RETURN substring(p.name, 2, 4) SKIP 1048575"},
	} {
		for _, c := range []struct {
			name string
			off  []string
		}{{"on", nil}, {"off", []string{"code-call"}}} {
			b.Run(q.name+"/"+c.name, func(b *testing.B) {
				db, err := Open(dir, Options{DisabledRules: c.off})
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				for b.Loop() {
					queryToEnd(b, db, q.text, nil)
				}
			})
		}
	}
}
