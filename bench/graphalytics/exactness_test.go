package graphalytics

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestExactness imports every graph of the Graphalytics reference suite
// (quiver import --graphalytics) and checks every algorithm that has a
// reference output, run through the query language, with Graphalytics'
// rules. Each algorithm must be checked on a directed and an undirected
// graph. Without the suite (a bare clone) it says so in one line and
// passes; a folder named by QUIVER_GRAPHALYTICS_DIR must exist.
func TestExactness(t *testing.T) {
	dir, named := FindDir()
	if _, err := os.Stat(dir); err != nil {
		if named {
			t.Fatalf("%s=%s: %v", DirEnv, dir, err)
		}
		t.Logf("Graphalytics exactness not checked: no reference graphs at %s (set %s to their folder)", dir, DirEnv)
		return
	}
	graphs, err := Graphs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(graphs) == 0 {
		t.Fatalf("no NAME.properties graphs in %s", dir)
	}
	checked := map[string]map[bool]bool{} // algorithm → directed → checked
	for _, prefix := range graphs {
		t.Run(filepath.Base(prefix), func(t *testing.T) {
			g, err := engine.ReadGraphalytics(prefix)
			if err != nil {
				t.Fatal(err)
			}
			data := filepath.Join(t.TempDir(), "data")
			if _, err := engine.Import(engine.ImportOptions{Dir: data, Graphalytics: prefix}); err != nil {
				t.Fatal(err)
			}
			db, err := engine.Open(data, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			listed := Listed(g)
			for _, a := range Algorithms {
				if !HasReference(prefix, a) {
					if slices.Contains(listed, a.Name) {
						t.Errorf("%s lists %s but has no reference output %s-%s", g.Name, a.Name, g.Name, a.Ref)
					}
					continue
				}
				t.Run(a.Name, func(t *testing.T) {
					if err := Check(context.Background(), db, prefix, g, a); err != nil {
						t.Fatal(err)
					}
				})
				if checked[a.Name] == nil {
					checked[a.Name] = map[bool]bool{}
				}
				checked[a.Name][g.Directed] = true
			}
			if !g.Directed {
				checkStoredOnce(t, db, prefix, g)
			}
		})
	}
	for _, a := range Algorithms {
		if !checked[a.Name][true] || !checked[a.Name][false] {
			t.Errorf("%s was not checked on both a directed and an undirected graph (directed: %v, undirected: %v)",
				a.Name, checked[a.Name][true], checked[a.Name][false])
		}
	}
}

// checkStoredOnce deletes one direction of every edge of the undirected
// graph in db (imported in both), so each edge is stored once, as an
// overlay of deletes over the imported base, and checks every algorithm
// again through direction 'UNDIRECTED' against the same references.
func checkStoredOnce(t *testing.T, db *engine.DB, prefix string, g *engine.Graphalytics) {
	count := func() int64 {
		out, err := Run(context.Background(), db, "MATCH (a:V)-[r]->(b:V) WHERE a.id <> b.id RETURN 0, count(r)", nil)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := out[0]
		if !ok || !v.IsInt {
			t.Fatalf("relationship count: %v", out)
		}
		return v.Int
	}
	both := count()
	res, err := db.Query(context.Background(), "MATCH (a:V)-[r]->(b:V) WHERE a.id > b.id DELETE r", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if once := count(); both == 0 || once*2 != both {
		t.Fatalf("%d relationships between distinct vertices before, %d after deleting one direction", both, once)
	}
	for _, a := range Algorithms {
		if !HasReference(prefix, a) {
			continue
		}
		t.Run(a.Name+"/stored-once", func(t *testing.T) {
			if err := CheckIn(context.Background(), db, prefix, g, a, "UNDIRECTED"); err != nil {
				t.Fatal(err)
			}
		})
	}
}
