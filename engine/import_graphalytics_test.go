package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// graphalyticsProps is a Graphalytics properties file for graph NAME.
func graphalyticsProps(name string, directed bool, edgeProps string) string {
	s := "# a comment\ngraph." + name + ".directed = " + map[bool]string{true: "true", false: "false"}[directed] + "\n" +
		"graph." + name + ".bfs.source-vertex = 10\n"
	if edgeProps != "" {
		s += "graph." + name + ".edge-properties.names = " + edgeProps + "\ngraph." + name + ".edge-properties.types = real\n"
	}
	return s
}

// TestImportGraphalytics imports Graphalytics graphs (ids with gaps, not
// from 0; weights; tab and space separators) and queries them: a
// directed graph keeps its edges as listed, an undirected one gets both
// directions of each edge (a self-loop once).
func TestImportGraphalytics(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{
		"d.properties": graphalyticsProps("d", true, "weight"),
		"d.v":          "10\n20\n35\n1000\n",
		"d.e":          "10 20 0.5\n20\t35\t2\n35 10 1e-3\n10 35 4\n",
		"u.properties": graphalyticsProps("u", false, ""),
		"u.v":          "7\n3\n5\n",
		"u.e":          "7 3 1.5\n3 5 2.5\n5 5 9\n",
	})
	open := func(name string) *engine.DB {
		dir := filepath.Join(t.TempDir(), "data")
		sum, err := engine.Import(engine.ImportOptions{Dir: dir, Graphalytics: filepath.Join(in, name)})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Nodes == 0 || sum.InputBytes == 0 {
			t.Fatalf("summary %+v", sum)
		}
		db, err := engine.Open(dir, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if err := db.Check(); err != nil {
			t.Fatal(err)
		}
		return db
	}
	d := open("d")
	for _, c := range []struct{ q, want string }{
		{"MATCH (v:V) RETURN v.id ORDER BY v.id", "10,20,35,1000"},
		{"MATCH ()-[e:E]->() RETURN count(e), sum(e.weight)", "4 | 6.501"},
		{"MATCH (a:V {id: 10})-[e:E]->(b) RETURN b.id, e.weight ORDER BY b.id", "20 | 0.5,35 | 4.0"},
		{"MATCH (a:V {id: 10})<-[:E]-(b) RETURN b.id", "35"},
		{"MATCH (v:V {id: 1000})-[]-() RETURN count(*)", "0"},
	} {
		if got := strings.Join(mustQuery(t, d, c.q, nil), ","); got != c.want {
			t.Errorf("directed: %s: got %s, want %s", c.q, got, c.want)
		}
	}
	u := open("u")
	for _, c := range []struct{ q, want string }{
		{"MATCH (v:V) RETURN v.id ORDER BY v.id", "3,5,7"},
		{"MATCH ()-[e:E]->() RETURN count(e)", "5"},
		{"MATCH (a:V {id: 3})-[e:E]->(b) RETURN b.id, e.weight ORDER BY b.id", "5 | 2.5,7 | 1.5"},
		{"MATCH (a:V {id: 7})-[e:E]->(b) RETURN b.id, e.weight", "3 | 1.5"},
		{"MATCH (a:V {id: 5})-[e:E]->(b) RETURN b.id, e.weight ORDER BY b.id", "3 | 2.5,5 | 9.0"},
	} {
		if got := strings.Join(mustQuery(t, u, c.q, nil), ","); got != c.want {
			t.Errorf("undirected: %s: got %s, want %s", c.q, got, c.want)
		}
	}
	if used := indexUsed(t, u, "MATCH (a:V {id: 3})-[:E]->(b) RETURN b.id", nil); len(used) != 1 || used[0] != "index_v_id" {
		t.Errorf("key lookup: index_used %v, want [index_v_id]", used)
	}
}

// TestImportGraphalyticsErrors: bad Graphalytics input names the file
// and line and leaves no directory behind.
func TestImportGraphalyticsErrors(t *testing.T) {
	for _, c := range []struct {
		name, props, v, e, want string
	}{
		{"directed missing", "graph.g.x = 1\n", "1\n", "", `g.properties: graph.g.directed is ""`},
		{"bad property line", "graph.g.directed true\n", "1\n", "", `g.properties:1: "graph.g.directed true" is not key = value`},
		{"bad vertex", graphalyticsProps("g", true, ""), "1\nx\n", "", `g.v:2:1: "x" is not a vertex id`},
		{"vertex too large", graphalyticsProps("g", true, ""), "18446744073709551615\n", "", "g.v:1:1: vertex id 18446744073709551615 is above 2^63-1"},
		{"duplicate vertex", graphalyticsProps("g", true, ""), "1\n2\n1\n", "", "g.v:3:1 (column id): duplicate node key 1"},
		{"unknown vertex", graphalyticsProps("g", true, ""), "1\n2\n", "1 2\n2 3\n", "g.e:2:2: vertex 3 is not in g.v"},
		{"missing weight", graphalyticsProps("g", true, "weight"), "1\n2\n", "1 2 1.0\n2 1\n", "g.e:2: 2 fields, want 3 (src dst prop)"},
		{"bad weight", graphalyticsProps("g", false, "weight"), "1\n2\n", "1 2 heavy\n", `g.e:1:3 (column weight): "heavy" is not a number`},
		{"empty line", graphalyticsProps("g", true, ""), "1\n\n2\n", "", "g.v:2: empty line"},
		{"no edge file", graphalyticsProps("g", true, ""), "1\n", "-", "g.e: no such file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := t.TempDir()
			files := map[string]string{"g.properties": c.props, "g.v": c.v}
			if c.e != "-" {
				files["g.e"] = c.e
			}
			writeFiles(t, in, files)
			out := t.TempDir()
			_, err := engine.Import(engine.ImportOptions{Dir: filepath.Join(out, "data"), Graphalytics: filepath.Join(in, "g")})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if ents, _ := os.ReadDir(out); len(ents) != 0 {
				t.Fatalf("failed import left %v", ents)
			}
		})
	}
	_, err := engine.Import(engine.ImportOptions{Dir: t.TempDir(), Graphalytics: "g", Nodes: []engine.ImportInput{{Name: "P", Path: "p.csv"}}})
	if err == nil || !strings.Contains(err.Error(), "alone") {
		t.Fatalf("graphalytics with node files: %v", err)
	}
}
