package bench

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
)

// TestSNBQuiverSide imports a small SNB-like data set and checks Quiver's
// answers to the SNB suite, embedded and over HTTP, against answers
// computed here from the generated data.
func TestSNBQuiverSide(t *testing.T) {
	g := GenerateSNB(NewSNBScale("t", 400), 11)
	dir := t.TempDir()
	if err := g.WriteCSV(dir); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var rep Report
	cfg := Config{Dataset: SNBDataset, DataDir: dir, Loader: ImportLoader{}}
	db, err := loadQuiver(ctx, cfg, filepath.Join(t.TempDir(), "db"), &rep)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rels := 0
	for _, es := range g.Edges() {
		rels += len(es)
	}
	if st := db.Counts(); st.Nodes != int64(g.Scale.NodeCount()) || st.Relationships != int64(rels) {
		t.Fatalf("loaded %+v, want %d nodes and %d relationships", st, g.Scale.NodeCount(), rels)
	}
	if rep.QuiverLoad.NodesMS <= 0 || rep.QuiverLoad.EdgesMS <= 0 {
		t.Errorf("load times %+v: both phases take time", rep.QuiverLoad)
	}

	srv, err := StartHTTP(db)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	want := snbAnswers(g)
	checked := checkSuite(t, ctx, db, srv, SNBSuite, want)
	if checked != len(want) {
		t.Fatalf("%d of %d expected answers checked", checked, len(want))
	}

	// The Cypher loader knows only persons.csv and knows.csv.
	cfg.Loader = CypherLoader{}
	if _, err := loadQuiver(ctx, cfg, filepath.Join(t.TempDir(), "db2"), &rep); err == nil {
		t.Error("the Cypher loader loaded the SNB-like data set")
	}
	cfg.Loader = ImportLoader{Parquet: true}
	if _, err := loadQuiver(ctx, cfg, filepath.Join(t.TempDir(), "db3"), &rep); err == nil {
		t.Error("a Parquet import of the SNB-like data set, which has no Parquet files, succeeded")
	}
}

// snbAnswers are answers to SNB suite queries computed from the Go data.
func snbAnswers(g *SNBGraph) map[string]Rows {
	ans := map[string]Rows{}
	var s01 Rows
	for _, l := range []struct {
		name string
		n    int
	}{{"Person", len(g.Persons)}, {"City", len(g.Cities)}, {"Tag", len(g.Tags)}, {"Forum", len(g.Forums)}, {"Post", len(g.Posts)}, {"Comment", len(g.Comments)}} {
		s01 = append(s01, []any{l.name, int64(l.n)})
	}
	ans["S01"] = s01
	var posts, comments int64
	for _, p := range g.Posts {
		if p.CreationYear >= 2020 {
			posts++
		}
	}
	for _, c := range g.Comments {
		if c.CreationYear >= 2020 {
			comments++
		}
	}
	ans["S02"] = Rows{{"Post", posts}, {"Comment", comments}}

	// S03: messages per person, top 10; S04: posts per person >= 20.
	msgs, postsBy := map[int64]int64{}, map[int64]int64{}
	for _, e := range g.PostHasCreator {
		msgs[e.To]++
		postsBy[e.To]++
	}
	for _, e := range g.CommentHasCreator {
		msgs[e.To]++
	}
	ans["S03"] = topRows(msgs, 10)
	var n4, sum4, max4 int64
	for _, n := range postsBy {
		if n >= 20 {
			n4, sum4, max4 = n4+1, sum4+n, max(max4, n)
		}
	}
	ans["S04"] = Rows{{n4, sum4, max4}}

	// S08: posts per tag name, top 10.
	tagName := map[int64]string{}
	for _, tg := range g.Tags {
		tagName[tg.ID] = tg.Name
	}
	perTag := map[string]int64{}
	for _, e := range g.HasTag {
		perTag[tagName[e.To]]++
	}
	ans["S08"] = topRows(perTag, 10)

	// S16: persons within 2 KNOWS hops of 42, either direction, but 42;
	// their posts.
	adj := map[int64][]int64{}
	for _, e := range g.Knows {
		adj[e.From] = append(adj[e.From], e.To)
		adj[e.To] = append(adj[e.To], e.From)
	}
	near := map[int64]bool{}
	for _, b := range adj[42] {
		near[b] = true
		for _, c := range adj[b] {
			near[c] = true
		}
	}
	delete(near, 42)
	var n16 int64
	for _, e := range g.PostHasCreator {
		if near[e.To] {
			n16++
		}
	}
	with := map[int64]bool{}
	for _, e := range g.PostHasCreator {
		if near[e.To] {
			with[e.To] = true
		}
	}
	ans["S16"] = Rows{{n16, int64(len(with))}}

	// S22: likes of posts tagged with one of the liker's interests.
	born := map[int64]bool{}
	for _, p := range g.Persons {
		born[p.ID] = p.BirthYear == 1990
	}
	interest := map[[2]int64]bool{}
	for _, e := range g.HasInterest {
		interest[[2]int64{e.From, e.To}] = true
	}
	tagsOf := map[int64][]int64{}
	for _, e := range g.HasTag {
		tagsOf[e.From] = append(tagsOf[e.From], e.To)
	}
	var n22 int64
	likers := map[int64]bool{}
	for _, e := range g.Likes {
		for _, tg := range tagsOf[e.To] {
			if born[e.From] && interest[[2]int64{e.From, tg}] {
				n22++
				likers[e.From] = true
			}
		}
	}
	ans["S22"] = Rows{{n22, int64(len(likers))}}

	// S23, S24: lookups by id without a single label.
	for _, p := range g.Persons {
		if p.ID == 42 {
			ans["S23"] = Rows{{"Person", int64(42)}}
		}
	}
	var n24 int64
	for _, id := range []int64{42, 3000, 30000, 300000, 600000, 900000} {
		for _, p := range g.Posts {
			if p.ID == id {
				n24++
			}
		}
		for _, c := range g.Comments {
			if c.ID == id {
				n24++
			}
		}
	}
	ans["S24"] = Rows{{n24}}
	return ans
}

// topRows is the k largest counts as (key, count) rows, descending.
func topRows[K comparable](m map[K]int64, k int) Rows {
	var out Rows
	for key, n := range m {
		out = append(out, []any{Normalize(key), n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1].(int64) > out[j][1].(int64) })
	return out[:min(k, len(out))]
}
