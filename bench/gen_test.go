package bench

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestGenerateDeterministic(t *testing.T) {
	a, b := Generate(2000, 20000, 7), Generate(2000, 20000, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two different graphs")
	}
	c := Generate(2000, 20000, 8)
	if reflect.DeepEqual(a.Knows, c.Knows) {
		t.Fatal("seeds 7 and 8 gave the same edges")
	}
}

func TestGenerateShape(t *testing.T) {
	const n, m = 20000, 200000
	g := Generate(n, m, 1)
	if len(g.Persons) != n || len(g.Knows) != m {
		t.Fatalf("got %d persons and %d edges, want %d and %d", len(g.Persons), len(g.Knows), n, m)
	}
	cities := map[string]int{}
	for i, p := range g.Persons {
		if p.ID != int64(i) {
			t.Fatalf("person %d has id %d", i, p.ID)
		}
		if p.Age < 18 || p.Age > 80 {
			t.Fatalf("age %d outside 18..80", p.Age)
		}
		if p.Name == "" || strings.ContainsAny(p.Name, ",\"\n") {
			t.Fatalf("name %q is not CSV-safe", p.Name)
		}
		cities[p.City]++
	}
	if len(cities) > Cities || len(cities) < Cities/2 {
		t.Fatalf("%d distinct cities, want at most %d and most of them used", len(cities), Cities)
	}
	// Zipf skew: the first city is far more frequent than a middle one.
	if cities[CityName(0)] < 10*cities[CityName(100)] {
		t.Fatalf("city counts not skewed: %d vs %d", cities[CityName(0)], cities[CityName(100)])
	}
	seen := map[[2]int64]bool{}
	out, in := make([]int, n), make([]int, n)
	sinceMin, sinceMax := int64(math.MaxInt64), int64(0)
	for _, k := range g.Knows {
		if k.From == k.To {
			t.Fatalf("self-loop on %d", k.From)
		}
		if k.From < 0 || k.From >= n || k.To < 0 || k.To >= n {
			t.Fatalf("edge %v leaves the id range", k)
		}
		if seen[[2]int64{k.From, k.To}] {
			t.Fatalf("duplicate edge %v", k)
		}
		seen[[2]int64{k.From, k.To}] = true
		out[k.From]++
		in[k.To]++
		sinceMin, sinceMax = min(sinceMin, k.Since), max(sinceMax, k.Since)
	}
	if sinceMin != 2000 || sinceMax != 2024 {
		t.Fatalf("since spans %d..%d, want 2000..2024", sinceMin, sinceMax)
	}
	// Edges are shuffled: the sources of the first edges are not sorted.
	if sort.SliceIsSorted(g.Knows[:100], func(i, j int) bool { return g.Knows[i].From < g.Knows[j].From }) {
		t.Fatal("edges look sorted by source")
	}
	// Hubs fan out both ways: the node with the largest out-degree is also
	// among the largest in-degrees (same weight for both directions).
	hub := 0
	for i := range out {
		if out[i] > out[hub] {
			hub = i
		}
	}
	if in[hub] < out[hub]/3 {
		t.Fatalf("hub %d: out %d but in %d", hub, out[hub], in[hub])
	}
	// Hubs are scattered by the permutation, not at id 0.
	if hub < 10 {
		t.Logf("hub at id %d (possible, unlikely)", hub)
	}
	// Power law: for P(k) ~ k^-2.5 the complementary CDF falls like k^-1.5,
	// so the number of nodes of degree >= k drops by about 2^1.5 ≈ 2.8 per
	// doubling of k in the tail. Fit the slope over k = 32..256.
	deg := make([]int, n)
	for i := range deg {
		deg[i] = out[i] + in[i]
	}
	ccdf := func(k int) float64 {
		c := 0
		for _, d := range deg {
			if d >= k {
				c++
			}
		}
		return float64(c)
	}
	slope := (math.Log(ccdf(256)) - math.Log(ccdf(32))) / (math.Log(256) - math.Log(32))
	if slope > -1.1 || slope < -2.0 {
		t.Fatalf("degree CCDF slope %.2f, want about -1.5 (power law with gamma 2.5)", slope)
	}
	t.Logf("CCDF slope %.2f, max out-degree %d (hub id %d)", slope, out[hub], hub)
}

func TestWriteCSV(t *testing.T) {
	g := Generate(50, 200, 3)
	dir := t.TempDir()
	if err := g.WriteCSV(dir); err != nil {
		t.Fatal(err)
	}
	lines := func(name string) []string {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var ls []string
		s := bufio.NewScanner(f)
		for s.Scan() {
			ls = append(ls, s.Text())
		}
		return ls
	}
	p := lines(PersonsCSV)
	if len(p) != 51 || p[0] != PersonsHeader {
		t.Fatalf("persons.csv: %d lines, header %q", len(p), p[0])
	}
	if want := "0," + g.Persons[0].Name; !strings.HasPrefix(p[1], want) {
		t.Fatalf("first person row %q, want prefix %q", p[1], want)
	}
	k := lines(KnowsCSV)
	if len(k) != 201 || k[0] != KnowsHeader {
		t.Fatalf("knows.csv: %d lines, header %q", len(k), k[0])
	}
	if strings.Count(k[1], ",") != 2 {
		t.Fatalf("knows row %q", k[1])
	}
}
