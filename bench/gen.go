// Package bench is the benchmark harness of Quiver beside Kùzu: a
// deterministic power-law graph generator, the query suite Q1–Q9 in both
// engines' spellings (and the wider W01–W33), a second, SNB-like data set
// of several labels and relationship types with its suite S01–S24
// (snb_gen.go, suite_snb.go), the runners (Quiver embedded and over HTTP
// in this process, Kùzu as a Node.js subprocess), the answer comparison
// and the RESULTS.md report. bench/cmd/quiverbench is the thin command
// over it.
package bench

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
)

// Scale is a named graph size.
type Scale struct {
	Name  string
	Nodes int
	Edges int
}

// Scales are the sizes issue 5 names: S, M and L.
var Scales = map[string]Scale{
	"S": {"S", 100_000, 1_000_000},
	"M": {"M", 1_000_000, 10_000_000},
	"L": {"L", 10_000_000, 100_000_000},
}

// Gamma is the exponent of the degree distribution P(k) ~ k^-Gamma.
const Gamma = 2.5

// Cities is the number of distinct Person.city values.
const Cities = 200

// Person is one generated node.
type Person struct {
	ID   int64
	Name string
	Age  int64
	City string
}

// Knows is one generated relationship.
type Knows struct {
	From, To int64
	Since    int64
}

// Graph is a generated data set.
type Graph struct {
	Persons []Person
	Knows   []Knows
}

// Generate builds the graph of n persons and m KNOWS relationships for a
// seed. It is a directed Chung-Lu graph: node of rank r has weight
// (r+1)^(-1/(Gamma-1)), used for both its out- and in-degree so hubs fan out
// both ways; ranks go to ids through a seeded permutation, so hubs are
// scattered over the id space. Endpoints are drawn independently by weight;
// self-loops and repeated pairs are drawn again, so the result has exactly m
// distinct edges (m must leave room: m < n*(n-1)). Edges are shuffled.
func Generate(n, m int, seed uint64) *Graph {
	if n < 2 || m < 0 || float64(m) > 0.5*float64(n)*float64(n-1) {
		panic(fmt.Sprintf("bench.Generate: %d edges do not fit %d nodes", m, n))
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := &Graph{Persons: make([]Person, n), Knows: make([]Knows, 0, m)}

	// Node properties, in id order.
	zipf := rand.NewZipf(rng, 1.1, 1, Cities-1)
	for i := range g.Persons {
		g.Persons[i] = Person{
			ID:   int64(i),
			Name: firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))],
			Age:  18 + rng.Int64N(63),
			City: CityName(int(zipf.Uint64())),
		}
	}

	// Weights by rank; rank r belongs to id perm[r].
	perm := rng.Perm(n)
	cum := make([]float64, n)
	total := 0.0
	for r := range n {
		total += math.Pow(float64(r+1), -1/(Gamma-1))
		cum[r] = total
	}
	draw := func() int64 {
		x := rng.Float64() * total
		r := sort.SearchFloat64s(cum, x)
		if r >= n {
			r = n - 1
		}
		return int64(perm[r])
	}
	seen := make(map[uint64]struct{}, m)
	for len(g.Knows) < m {
		a, b := draw(), draw()
		if a == b {
			continue
		}
		key := uint64(a)<<32 | uint64(b)
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		g.Knows = append(g.Knows, Knows{From: a, To: b, Since: 2000 + rng.Int64N(25)})
	}
	rng.Shuffle(len(g.Knows), func(i, j int) { g.Knows[i], g.Knows[j] = g.Knows[j], g.Knows[i] })
	return g
}

// CityName is the name of city number i (0 is the most frequent).
func CityName(i int) string { return fmt.Sprintf("City%03d", i) }

var firstNames = []string{"Ada", "Alan", "Barbara", "Claude", "Donald", "Edsger", "Frances", "Grace",
	"John", "Ken", "Leslie", "Margaret", "Niklaus", "Radia", "Shafi", "Tony"}
var lastNames = []string{"Allen", "Backus", "Codd", "Dijkstra", "Gray", "Hamilton", "Hoare", "Hopper",
	"Knuth", "Lamport", "Liskov", "Lovelace", "Perlman", "Ritchie", "Thompson", "Wirth"}

// CSV file names inside a data set directory.
const (
	PersonsCSV = "persons.csv"
	KnowsCSV   = "knows.csv"
)

// PersonsHeader and KnowsHeader are the CSV header rows. Types are declared
// in the header; Kùzu's COPY FROM maps columns by position and skips the
// header, so the same files serve both engines.
const (
	PersonsHeader = "id:INT64,name:STRING,age:INT64,city:STRING"
	KnowsHeader   = "from:INT64,to:INT64,since:INT64"
)

// WriteCSV writes persons.csv and knows.csv into dir.
func (g *Graph) WriteCSV(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, PersonsCSV), func(w *bufio.Writer) {
		w.WriteString(PersonsHeader + "\n")
		var buf []byte
		for _, p := range g.Persons {
			buf = strconv.AppendInt(buf[:0], p.ID, 10)
			buf = append(buf, ',')
			buf = append(buf, p.Name...) // names have no commas or quotes
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, p.Age, 10)
			buf = append(buf, ',')
			buf = append(buf, p.City...)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	}); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, KnowsCSV), func(w *bufio.Writer) {
		w.WriteString(KnowsHeader + "\n")
		var buf []byte
		for _, k := range g.Knows {
			buf = strconv.AppendInt(buf[:0], k.From, 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, k.To, 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, k.Since, 10)
			buf = append(buf, '\n')
			w.Write(buf)
		}
	})
}

func writeFile(path string, fill func(*bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fill(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
