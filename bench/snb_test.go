package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestGenerateSNBDeterministic(t *testing.T) {
	s := NewSNBScale("t", 500)
	a, b := GenerateSNB(s, 7), GenerateSNB(s, 7)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("the same seed gave two different graphs")
	}
	if c := GenerateSNB(s, 8); reflect.DeepEqual(a.Knows, c.Knows) || reflect.DeepEqual(a.Likes, c.Likes) {
		t.Fatal("seeds 7 and 8 gave the same relationships")
	}
}

// snbLabels maps every id of g to its label, checking that the labels
// are consecutive blocks of ids in SNBDataset's order.
func snbLabels(t *testing.T, g *SNBGraph) []string {
	t.Helper()
	var label []string
	add := func(name string, ids []int64) {
		for _, id := range ids {
			if id != int64(len(label)) {
				t.Fatalf("%s id %d, want %d (ids are consecutive over all labels)", name, id, len(label))
			}
			label = append(label, name)
		}
	}
	ids := func(n int, id func(int) int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = id(i)
		}
		return out
	}
	add("Person", ids(len(g.Persons), func(i int) int64 { return g.Persons[i].ID }))
	add("City", ids(len(g.Cities), func(i int) int64 { return g.Cities[i].ID }))
	add("Tag", ids(len(g.Tags), func(i int) int64 { return g.Tags[i].ID }))
	add("Forum", ids(len(g.Forums), func(i int) int64 { return g.Forums[i].ID }))
	add("Post", ids(len(g.Posts), func(i int) int64 { return g.Posts[i].ID }))
	add("Comment", ids(len(g.Comments), func(i int) int64 { return g.Comments[i].ID }))
	return label
}

func TestGenerateSNBShape(t *testing.T) {
	s := NewSNBScale("t", 5000)
	g := GenerateSNB(s, 1)
	counts := []int{len(g.Persons), len(g.Cities), len(g.Tags), len(g.Forums), len(g.Posts), len(g.Comments)}
	if want := []int{s.Persons, s.Cities, s.Tags, s.Forums, s.Posts, s.Comments}; !slices.Equal(counts, want) {
		t.Fatalf("node counts %v, want %v", counts, want)
	}
	label := snbLabels(t, g)
	if len(label) != s.NodeCount() {
		t.Fatalf("%d nodes, NodeCount %d", len(label), s.NodeCount())
	}

	// Every relationship joins the labels its file declares; the types
	// that must not repeat a pair do not; KNOWS has one relationship per
	// unordered pair and no self-loops.
	noRepeat := map[string]bool{"KNOWS": true, "HAS_INTEREST": true, "HAS_MEMBER": true, "HAS_TAG": true, "LIKES": true}
	edges := g.Edges()
	for i, tb := range SNBDataset.Rels {
		seen := map[[2]int64]bool{}
		for _, e := range edges[i] {
			if label[e.From] != tb.From || label[e.To] != tb.To {
				t.Fatalf("%s %v joins %s to %s, want %s to %s", tb.File, e, label[e.From], label[e.To], tb.From, tb.To)
			}
			key := [2]int64{e.From, e.To}
			if tb.Name == "KNOWS" {
				if e.From == e.To {
					t.Fatalf("KNOWS self-loop %v", e)
				}
				key = [2]int64{min(e.From, e.To), max(e.From, e.To)}
			}
			if noRepeat[tb.Name] && seen[key] {
				t.Fatalf("%s repeats %v", tb.File, e)
			}
			seen[key] = true
			if (len(tb.Cols) > 0) != (e.Year > 0) {
				t.Fatalf("%s %v: a year where the file has a property column", tb.File, e)
			}
		}
	}
	if len(g.Knows) != s.Knows || len(g.HasMember) != s.Members || len(g.Likes) != s.Likes {
		t.Fatalf("%d KNOWS, %d HAS_MEMBER, %d LIKES, want %d, %d, %d", len(g.Knows), len(g.HasMember), len(g.Likes), s.Knows, s.Members, s.Likes)
	}
	// One per node: location, moderator, container, creator, reply.
	one := func(name string, es []Edge, n int) {
		from := map[int64]bool{}
		for _, e := range es {
			from[e.From] = true
		}
		if len(from) != n || len(es) != n {
			t.Errorf("%s: %d relationships from %d nodes, want one from each of %d", name, len(es), len(from), n)
		}
	}
	one("IS_LOCATED_IN", g.IsLocatedIn, s.Persons)
	one("HAS_MODERATOR", g.HasModerator, s.Forums)
	one("CONTAINER_OF by post", reverse(g.ContainerOf), s.Posts)
	one("HAS_CREATOR", append(slices.Clone(g.PostHasCreator), g.CommentHasCreator...), s.Posts+s.Comments)
	one("REPLY_OF", append(slices.Clone(g.ReplyOfPost), g.ReplyOfComment...), s.Comments)
	for _, e := range g.ReplyOfComment {
		if e.To >= e.From {
			t.Fatalf("comment %d replies to %d, not an earlier comment", e.From, e.To)
		}
	}
	for i, e := range g.IsLocatedIn {
		if g.Persons[i].City != g.Cities[e.To-g.Cities[0].ID].Name {
			t.Fatalf("person %d: city %q, located in %v", i, g.Persons[i].City, e)
		}
	}
	per := func(es []Edge) map[int64]int {
		m := map[int64]int{}
		for _, e := range es {
			m[e.From]++
		}
		return m
	}
	for id, k := range per(g.HasInterest) {
		if k < 1 || k > 15 {
			t.Fatalf("person %d has %d interests, want 1..15", id, k)
		}
	}
	for id, k := range per(g.HasTag) {
		if k < 1 || k > 4 {
			t.Fatalf("post %d has %d tags, want 1..4", id, k)
		}
	}

	// Years: a post is no older than its forum, a comment than what it
	// replies to; all within 1950..2024.
	year := map[int64]int64{}
	for _, f := range g.Forums {
		year[f.ID] = f.CreationYear
	}
	for i, e := range g.ContainerOf {
		if p := g.Posts[i]; e.To != p.ID || p.CreationYear < year[e.From] || p.CreationYear > snbLastYear {
			t.Fatalf("post %+v in forum %d of %d", p, e.From, year[e.From])
		}
		year[e.To] = g.Posts[i].CreationYear
	}
	for _, c := range g.Comments {
		year[c.ID] = c.CreationYear
	}
	for _, e := range append(slices.Clone(g.ReplyOfPost), g.ReplyOfComment...) {
		if year[e.From] < year[e.To] || year[e.From] > snbLastYear {
			t.Fatalf("comment %d of %d replies to %d of %d", e.From, year[e.From], e.To, year[e.To])
		}
	}
	for _, p := range g.Persons {
		if p.BirthYear < 1950 || p.BirthYear > 2004 || strings.ContainsAny(p.FirstName+p.LastName+p.City, ",\"\n") {
			t.Fatalf("person %+v", p)
		}
	}

	// Skew: hubs far above the mean in every power-law relationship, and
	// Zipf-popular tags.
	skew := func(name string, es []Edge, to bool, factor float64) {
		deg := map[int64]int{}
		for _, e := range es {
			if to {
				deg[e.To]++
			} else {
				deg[e.From]++
			}
		}
		top := 0
		for _, d := range deg {
			top = max(top, d)
		}
		mean := float64(len(es)) / float64(len(deg))
		if float64(top) < factor*mean {
			t.Errorf("%s: largest degree %d, mean %.1f: not skewed (want %.0f× the mean)", name, top, mean, factor)
		}
		t.Logf("%s: largest degree %d, mean %.1f", name, top, mean)
	}
	skew("KNOWS", append(slices.Clone(g.Knows), reverse(g.Knows)...), false, 20)
	skew("posts per creator", g.PostHasCreator, true, 20)
	skew("likes per post", g.Likes, true, 20)
	skew("replies per post", g.ReplyOfPost, true, 20)
	skew("members per forum", g.HasMember, false, 20)
	skew("posts per tag", g.HasTag, true, 20)
	skew("persons per city", g.IsLocatedIn, true, 5)
}

func reverse(es []Edge) []Edge {
	out := make([]Edge, len(es))
	for i, e := range es {
		out[i] = Edge{From: e.To, To: e.From, Year: e.Year}
	}
	return out
}

// TestDatasets: the Person/KNOWS description gives the files' headers and
// Kùzu's statements as they were written before data sets were described;
// SNB's several-pair types become one REL TABLE with a COPY per pair.
func TestDatasets(t *testing.T) {
	ds := KnowsDataset
	if h := ds.Nodes[0].Header(); h != PersonsHeader {
		t.Errorf("persons header %q", h)
	}
	if h := ds.Rels[0].Header(); h != KnowsHeader {
		t.Errorf("knows header %q", h)
	}
	ddl, err := ds.KuzuDDL()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"CREATE NODE TABLE Person(id INT64, name STRING, age INT64, city STRING, PRIMARY KEY (id))",
		"CREATE REL TABLE KNOWS(FROM Person TO Person, since INT64)"}; !slices.Equal(ddl, want) {
		t.Errorf("DDL %q", ddl)
	}
	nodes, rels, err := ds.KuzuCopies("/data/it's")
	if err != nil || !slices.Equal(nodes, []string{"COPY Person FROM '/data/it''s/persons.csv' (header=true)"}) ||
		!slices.Equal(rels, []string{"COPY KNOWS FROM '/data/it''s/knows.csv' (header=true)"}) {
		t.Errorf("COPY %q %q %v", nodes, rels, err)
	}

	ddl, err = SNBDataset.KuzuDDL()
	if err != nil {
		t.Fatal(err)
	}
	if len(ddl) != len(SNBDataset.Nodes)+SNBDataset.RelTypes() || SNBDataset.RelTypes() != 10 {
		t.Errorf("%d statements for %d types: %q", len(ddl), SNBDataset.RelTypes(), ddl)
	}
	for _, want := range []string{"CREATE REL TABLE HAS_CREATOR(FROM Post TO Person, FROM Comment TO Person)",
		"CREATE REL TABLE LIKES(FROM Person TO Post, creationYear INT64)", "CREATE REL TABLE IS_LOCATED_IN(FROM Person TO City)"} {
		if !slices.Contains(ddl, want) {
			t.Errorf("DDL lacks %q", want)
		}
	}
	_, rels, _ = SNBDataset.KuzuCopies("/d")
	if !slices.Contains(rels, "COPY REPLY_OF FROM '/d/comment_replyOf_comment.csv' (from='Comment', to='Comment', header=true)") ||
		!slices.Contains(rels, "COPY KNOWS FROM '/d/person_knows_person.csv' (header=true)") {
		t.Errorf("COPY %q", rels)
	}
	if SNBDataset.Rels[len(SNBDataset.Rels)-1].File != SNBLastFile {
		t.Error("SNBLastFile is not the last file written")
	}
	bad := &Dataset{Name: "bad", Rels: []Table{{Name: "R", From: "A", To: "B"}, {Name: "R", From: "A", To: "C", Cols: []Column{{"x", "INT64"}}}}}
	if _, err := bad.KuzuDDL(); err == nil {
		t.Error("files of one type with different columns were accepted")
	}
}

func TestSNBWriteCSV(t *testing.T) {
	g := GenerateSNB(NewSNBScale("t", 200), 3)
	dir := t.TempDir()
	if err := g.WriteCSV(dir); err != nil {
		t.Fatal(err)
	}
	rows := []int{len(g.Persons), len(g.Cities), len(g.Tags), len(g.Forums), len(g.Posts), len(g.Comments)}
	for _, es := range g.Edges() {
		rows = append(rows, len(es))
	}
	for i, tb := range append(slices.Clone(SNBDataset.Nodes), SNBDataset.Rels...) {
		f, err := os.Open(filepath.Join(dir, tb.File))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan()
		if sc.Text() != tb.Header() {
			t.Errorf("%s: header %q, want %q", tb.File, sc.Text(), tb.Header())
		}
		width, n := strings.Count(tb.Header(), ",")+1, 0
		for sc.Scan() {
			if w := strings.Count(sc.Text(), ",") + 1; w != width {
				t.Fatalf("%s: row %q has %d fields, want %d", tb.File, sc.Text(), w, width)
			}
			n++
		}
		f.Close()
		if n != rows[i] {
			t.Errorf("%s: %d rows, want %d", tb.File, n, rows[i])
		}
	}
}

func TestSNBSuite(t *testing.T) {
	if len(SNBSuite) < 12 {
		t.Fatalf("%d queries", len(SNBSuite))
	}
	for i, q := range SNBSuite {
		if q.Name != fmt.Sprintf("S%02d", i+1) || q.Quiver == "" || q.Kuzu == "" || q.Shape == "" {
			t.Fatalf("query %d: %+v", i, q)
		}
		// The last RETURN's ORDER BY is what the comparison must know.
		ret := q.Quiver[strings.LastIndex(q.Quiver, "RETURN"):]
		if (q.TopK != nil || q.Ordered) != strings.Contains(ret, "ORDER BY") || q.TopK != nil && q.Ordered {
			t.Fatalf("%s: TopK or Ordered does not match its ORDER BY", q.Name)
		}
	}
}
