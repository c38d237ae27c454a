package load

import (
	"bufio"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// writeGraphCSV writes a random graph in the benchmark's shape:
// Person(id, name, age, city) and KNOWS(from, to, since), with skewed
// degrees (sources drawn from a square law).
func writeGraphCSV(tb testing.TB, dir string, nodes, edges int) (string, string) {
	rnd := rand.New(rand.NewSource(1))
	pf := filepath.Join(dir, "persons.csv")
	kf := filepath.Join(dir, "knows.csv")
	write := func(path string, fill func(w *bufio.Writer)) {
		f, err := os.Create(path)
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		fill(w)
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		f.Close()
	}
	write(pf, func(w *bufio.Writer) {
		w.WriteString("id:INT64,name:STRING,age:INT64,city:STRING\n")
		for i := range nodes {
			fmt.Fprintf(w, "%d,person%d,%d,city%d\n", i, i, 18+rnd.Intn(63), rnd.Intn(200))
		}
	})
	write(kf, func(w *bufio.Writer) {
		w.WriteString("from,to,since:INT64\n")
		var b []byte
		for range edges {
			x := rnd.Float64()
			src := int(x * x * float64(nodes))
			b = strconv.AppendInt(b[:0], int64(src), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(rnd.Intn(nodes)), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(2000+rnd.Intn(25)), 10)
			b = append(b, '\n')
			w.Write(b)
		}
	})
	return pf, kf
}

// BenchmarkImport imports a generated graph; QUIVER_IMPORT_NODES and
// QUIVER_IMPORT_EDGES set its size (default 100k / 1M; the M scale is
// 1000000 / 10000000).
func BenchmarkImport(b *testing.B) {
	nodes, edges := 100_000, 1_000_000
	if s := os.Getenv("QUIVER_IMPORT_NODES"); s != "" {
		nodes, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("QUIVER_IMPORT_EDGES"); s != "" {
		edges, _ = strconv.Atoi(s)
	}
	in := b.TempDir()
	pf, kf := writeGraphCSV(b, in, nodes, edges)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "data")
		sum, err := Import(Options{Dir: dir, Nodes: []Input{{"Person", pf}}, Rels: []Input{{"KNOWS", kf}}})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(sum.Seconds, "import-s")
		b.ReportMetric(float64(sum.Bytes)/1e6, "disk-MB")
		b.ReportMetric(float64(sum.InputBytes)/1e6, "csv-MB")
	}
}

// BenchmarkParseRels parses a generated relationship file (2M rows)
// against a dense key map of 1M nodes (the M scale's, larger than a
// core's cache): the CSV path alone, without the build.
func BenchmarkParseRels(b *testing.B) {
	const nodes, edges = 1_000_000, 2_000_000
	_, kf := writeGraphCSV(b, b.TempDir(), nodes, edges)
	data, err := os.ReadFile(kf)
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]int64, nodes)
	for i := range keys {
		keys[i] = int64(i)
	}
	km := &keyMap{}
	if err := km.add("p.csv", colSpec{name: "id", kind: kindInt, role: roleKey}, 0, &colData{i64: keys}, nodes, 0); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := parseTable(kf, data, &Options{}, true, km); err != nil {
			b.Fatal(err)
		}
	}
}
