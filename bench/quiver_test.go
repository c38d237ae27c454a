package bench

import (
	"context"
	"path/filepath"
	"sort"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestQuiverSide loads a small generated graph through each loader (bulk
// import and Cypher statements) and checks Quiver's answers, embedded and
// over HTTP, against values computed here straight from the generated
// edges.
func TestQuiverSide(t *testing.T) {
	g := Generate(2000, 12000, 5)
	dir := t.TempDir()
	if err := g.WriteCSV(dir); err != nil {
		t.Fatal(err)
	}
	if err := g.WriteParquet(dir); err != nil {
		t.Fatal(err)
	}
	for _, l := range []Loader{ImportLoader{}, ImportLoader{Parquet: true}, CypherLoader{Batch: 5000}} {
		t.Run(l.Name(), func(t *testing.T) { checkQuiverSide(t, g, dir, l) })
	}
}

func checkQuiverSide(t *testing.T, g *Graph, dir string, l Loader) {
	ctx := context.Background()
	var rep Report
	db, err := loadQuiver(ctx, Config{DataDir: dir, Loader: l}, filepath.Join(t.TempDir(), "db"), &rep)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	times := rep.QuiverLoad
	if times.NodesMS <= 0 || times.EdgesMS <= 0 {
		t.Errorf("load times %+v: both phases take time", times)
	}
	if _, built := l.(Builder); built != (times.OpenMS > 0) {
		t.Errorf("load times %+v: a built directory's opening is timed, an online load has none", times)
	}
	if st := db.Counts(); st.Nodes != 2000 || st.Relationships != 12000 {
		t.Fatalf("loaded %+v", st)
	}

	// Expected answers.
	older := int64(0)
	for _, p := range g.Persons {
		if p.Age > 30 {
			older++
		}
	}
	out, in := map[int64]int64{}, map[int64]int64{}
	for _, k := range g.Knows {
		out[k.From]++
		in[k.To]++
	}
	twoHop := int64(0)
	for b, n := range in {
		twoHop += n * out[b]
	}
	type deg struct{ id, d int64 }
	var degs []deg
	for id, d := range out {
		degs = append(degs, deg{id, d})
	}
	sort.Slice(degs, func(i, j int) bool { return degs[i].d > degs[j].d })
	var top Rows
	for _, d := range degs[:10] {
		top = append(top, []any{d.id, d.d})
	}
	want := map[string]Rows{
		"Q1": {{older}},
		"Q3": {{int64(12000)}},
		"Q5": {{twoHop}},
		"Q8": top,
	}

	srv, err := StartHTTP(db)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	checkSuite(t, ctx, db, srv, Suite, want)
}

// checkSuite runs every query of suite embedded and over HTTP, requires
// the two answers equal and, where want has the query, equal to it; it
// returns how many answers were checked against want.
func checkSuite(t *testing.T, ctx context.Context, db *engine.DB, srv *HTTPServer, suite []Query, want map[string]Rows) int {
	t.Helper()
	checked := 0
	for _, q := range suite {
		emb, err := QueryEmbedded(ctx, db, q.Quiver)
		if err != nil {
			t.Fatalf("%s: %v", q.Name, err)
		}
		web, err := srv.Query(ctx, q.Quiver)
		if err != nil {
			t.Fatalf("%s over HTTP: %v", q.Name, err)
		}
		if err := Compare(q, emb, web); err != nil {
			t.Fatalf("embedded and HTTP differ: %v", err)
		}
		if w, ok := want[q.Name]; ok {
			if err := Compare(q, emb, w); err != nil {
				t.Fatalf("against the generated data: %v", err)
			}
			checked++
		}
	}
	return checked
}
