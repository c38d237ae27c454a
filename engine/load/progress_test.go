package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"

	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
)

// phaseEnds imports o with a tracker and returns the phases it ended.
func phaseEnds(t *testing.T, o Options) ([]progress.Snapshot, Summary) {
	t.Helper()
	var ends []progress.Snapshot
	begun := 0
	o.Progress = progress.New(func(s progress.Snapshot) {
		if s.Ended {
			ends = append(ends, s)
		} else {
			begun++
		}
	})
	sum, err := Import(o)
	if err != nil {
		t.Fatal(err)
	}
	if begun != len(ends) {
		t.Fatalf("%d phases begun, %d ended", begun, len(ends))
	}
	return ends, sum
}

func fileSize(t *testing.T, paths ...string) int64 {
	t.Helper()
	var n int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// checkPhases holds ends to the import's phases in order, each reading
// phase with its files' bytes and rows, the adjacency with every
// relationship and the writing with every file.
func checkPhases(t *testing.T, ends []progress.Snapshot, nodeBytes, nodes, relBytes, rels, values int64) {
	t.Helper()
	want := []string{PhaseReadNodes, PhaseReadRels, storage.PhaseStoreNodeProperties, storage.PhaseBuildAdjacency, storage.PhaseWriteFiles}
	var got []string
	for _, s := range ends {
		got = append(got, s.Name)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("phases %q, want %q", got, want)
	}
	for i, c := range []struct {
		bytes, totalBytes, items, totalItems int64
	}{
		{nodeBytes, nodeBytes, nodes, 0},
		{relBytes, relBytes, rels, 0},
		{0, 0, values, values},
		{0, 0, rels, rels},
	} {
		s := ends[i]
		if s.Bytes != c.bytes || s.TotalBytes != c.totalBytes || s.Items != c.items || s.TotalItems != c.totalItems || s.Index != i+1 {
			t.Errorf("phase %s: %d of %d bytes, %d of %d %s (phase %d); want %d of %d bytes, %d of %d",
				s.Name, s.Bytes, s.TotalBytes, s.Items, s.TotalItems, s.Unit, s.Index, c.bytes, c.totalBytes, c.items, c.totalItems)
		}
	}
	if w := ends[4]; w.Items != w.TotalItems || w.Items < 5 || w.Bytes <= 0 || w.Unit != "files" {
		t.Errorf("writing: %+v", w)
	}
}

// TestImportProgressCSV: a CSV import reports its phases in order, with
// every byte and row of its files, whether a file is parsed in one part
// or in parallel parts (the large node file).
func TestImportProgressCSV(t *testing.T) {
	dir := t.TempDir()
	pf, kf := writeGraphCSV(t, dir, 60000, 50000) // persons.csv above 1 MiB: parsed in parts
	more := filepath.Join(dir, "more.csv")
	if err := os.WriteFile(more, []byte("id:INT64,name\n60000,a\n60001,b\n60002,\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ends, sum := phaseEnds(t, Options{Dir: filepath.Join(dir, "db"),
		Nodes: []Input{{Name: "Person", Path: pf}, {Name: "Person", Path: more}}, Rels: []Input{{Name: "KNOWS", Path: kf}}})
	if sum.Nodes != 60003 || sum.Relationships != 50000 {
		t.Fatalf("summary %+v", sum)
	}
	// Values: 4 columns of persons.csv, 2 of more.csv (a null counts: a
	// column stores a slot for it).
	checkPhases(t, ends, fileSize(t, pf, more), 60003, fileSize(t, kf), 50000, 4*60000+2*3)
}

// TestImportProgressParquet: a Parquet file's bytes are counted chunk
// by chunk up to its size, its rows by whole row groups.
func TestImportProgressParquet(t *testing.T) {
	dir := t.TempDir()
	n, m := 20000, 30000
	var ids, names, from, to strings.Builder
	for _, b := range []*strings.Builder{&ids, &names, &from, &to} {
		b.WriteString("[")
	}
	for i := range max(n, m) {
		sep := ","
		if i == 0 {
			sep = ""
		}
		if i < n {
			fmt.Fprintf(&ids, "%s%d", sep, i)
			fmt.Fprintf(&names, "%s\"n%d\"", sep, i)
		}
		if i < m {
			fmt.Fprintf(&from, "%s%d", sep, i%n)
			fmt.Fprintf(&to, "%s%d", sep, (i*7)%n)
		}
	}
	for _, b := range []*strings.Builder{&ids, &names, &from, &to} {
		b.WriteString("]")
	}
	pf, kf := filepath.Join(dir, "p.parquet"), filepath.Join(dir, "k.parquet")
	props := parquet.NewWriterProperties()
	writeParquet(t, pf, 3000, props, pqc{"id", arrow.PrimitiveTypes.Int64, ids.String(), true}, pqc{"name", arrow.BinaryTypes.String, names.String(), false})
	writeParquet(t, kf, 7000, props, pqc{"from", arrow.PrimitiveTypes.Int64, from.String(), true}, pqc{"to", arrow.PrimitiveTypes.Int64, to.String(), true})
	ends, _ := phaseEnds(t, Options{Dir: filepath.Join(dir, "db"),
		Nodes: []Input{{Name: "P", Path: pf}}, Rels: []Input{{Name: "R", Path: kf}}})
	checkPhases(t, ends, fileSize(t, pf), int64(n), fileSize(t, kf), int64(m), 2*int64(n))
}

// TestImportProgressGraphalytics: the vertex and edge files are read as
// the nodes and relationships phases, every line counted.
func TestImportProgressGraphalytics(t *testing.T) {
	dir := t.TempDir()
	var v, e strings.Builder
	n := 9000
	for i := range n {
		fmt.Fprintf(&v, "%d\n", i+1)
		fmt.Fprintf(&e, "%d %d\n", i+1, (i*3)%n+1)
	}
	for name, body := range map[string]string{"g.properties": "graph.g.directed = true\n", "g.v": v.String(), "g.e": e.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ends, _ := phaseEnds(t, Options{Dir: filepath.Join(dir, "db"), Graphalytics: filepath.Join(dir, "g")})
	checkPhases(t, ends, int64(v.Len()), int64(n), int64(e.Len()), int64(n), int64(n))
}
