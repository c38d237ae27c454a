package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/index"
)

// awaitOnline polls db.indexes() until index name is ONLINE.
func awaitOnline(t *testing.T, db querier, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rows := mustQuery(t, db, "CALL db.indexes() YIELD name, state WHERE name = '"+name+"' RETURN state", nil)
		if len(rows) == 1 && rows[0] == "'ONLINE'" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("index %s not ONLINE: %v", name, rows)
		}
		time.Sleep(5 * time.Millisecond) // polling a real condition with a deadline
	}
}

// ftsTitles runs a search on index articles and returns the titles of
// the hits in score order.
func ftsTitles(t *testing.T, db querier, q string) []string {
	t.Helper()
	return mustQuery(t, db, "CALL quiver.fts.search('articles', $q) YIELD node RETURN node.title", engine.Params{"q": q})
}

func openFTS(t *testing.T) *engine.DB {
	db := openTestDB(t)
	mustQuery(t, db, `UNWIND [
		{t: 'Graph databases', b: 'Nodes and relationships stored natively'},
		{t: 'Full text search', b: 'BM25 ranks the documents of an inverted index'},
		{t: 'Vector search', b: 'Nearest neighbours of an embedding, graph based HNSW'},
		{t: 'Cooking', b: 'Slow roasted vegetables'}] AS r
		CREATE (:Article {title: r.t, body: r.b})`, nil)
	mustQuery(t, db, "CREATE FULLTEXT INDEX articles FOR (n:Article) ON EACH [n.title, n.body]", nil)
	awaitOnline(t, db, "articles")
	return db
}

func TestFullTextQuerySyntax(t *testing.T) {
	db := openFTS(t)
	for _, c := range []struct{ q, want string }{
		{"graph", "'Graph databases','Vector search'"},
		{"title:graph", "'Graph databases'"},
		{`"inverted index"`, "'Full text search'"},
		{`"index inverted"`, ""},
		{"search AND vector", "'Vector search'"},
		{"search AND NOT vector", "'Full text search'"},
		{"search -vector", "'Full text search'"},
		{"cooking OR databases", "'Cooking','Graph databases'"},
		{"veget*", "'Cooking'"},
		{"roastd~1", "'Cooking'"},
		{"(graph OR cooking) AND body:natively", "'Graph databases'"},
	} {
		got := ftsTitles(t, db, c.q)
		if strings.Join(sorted(got), ",") != c.want {
			t.Errorf("search %q = %v, want %s", c.q, got, c.want)
		}
	}
	// BM25: the title and body both match "graph" in one, only the body
	// in the other.
	if got := ftsTitles(t, db, "graph"); len(got) != 2 || got[0] != "'Graph databases'" {
		t.Errorf("ranking of graph = %v", got)
	}
	if got := mustQuery(t, db, "CALL db.index.fulltext.queryNodes('articles', 'search', {limit: 1, skip: 1}) YIELD node, score RETURN node.title, score > 0", nil); len(got) != 1 {
		t.Errorf("limit/skip: %v", got)
	}
	if got := mustQuery(t, db, "SHOW INDEXES", nil); len(got) != 1 || !strings.Contains(got[0], "'FULLTEXT'") || !strings.Contains(got[0], "'ONLINE'") {
		t.Errorf("SHOW INDEXES = %v", got)
	}
}

func TestFullTextErrors(t *testing.T) {
	db := openFTS(t)
	mustQuery(t, db, "CREATE INDEX article_year FOR (n:Article) ON (n.year)", nil)
	for _, c := range []struct{ q, code, msg string }{
		{"CALL quiver.fts.search('articles', 'a AND (b') YIELD node RETURN node", "22023", "column 9: expected ) to close ( at column 7"},
		{"CALL quiver.fts.search('articles', '\"open') YIELD node RETURN node", "22023", "column 1"},
		{"CALL quiver.fts.search('articles', 'nope:x') YIELD node RETURN node", "22023", "unknown field nope"},
		{"CALL quiver.fts.search('missing', 'x') YIELD node RETURN node", "42S02", "missing"},
		{"CALL quiver.fts.search('articles', 'x', {limit: -1}) YIELD node RETURN node", "22023", "limit"},
		{"CALL db.index.fulltext.queryRelationships('articles', 'x') YIELD relationship RETURN relationship", "42000", "queryNodes"},
		{"CREATE FULLTEXT INDEX bad FOR (n:Article) ON EACH [n.title] OPTIONS {analyzer: 'klingon'}", "22023", "unknown analyzer"},
		// The query syntax: every error names the column it stopped at.
		{"CALL quiver.fts.search('articles', '') YIELD node RETURN node", "22023", "column 1: empty query"},
		{"CALL quiver.fts.search('articles', 'graph AND') YIELD node RETURN node", "22023", "column 10: expected a word"},
		{"CALL quiver.fts.search('articles', 'graph title:\"open') YIELD node RETURN node", "22023", "column 13: unterminated phrase"},
		{"CALL quiver.fts.search('articles', 'grph~3') YIELD node RETURN node", "22023", "column 6: fuzziness"},
		{"CALL quiver.fts.search('articles', 'a ) b') YIELD node RETURN node", "22023", "column 3: unexpected ')'"},
		{"CALL quiver.fts.search('articles', 'é AND (b') YIELD node RETURN node", "22023", "column 9"}, // columns count characters
		{"CALL quiver.fts.search('articles', $q) YIELD node RETURN node", "22023", "at most 65536"},
		// Arguments.
		{"CALL quiver.fts.search('articles', null) YIELD node RETURN node", "22023", "needs an index name and a query"},
		// Parameters are typed when the statement binds (22023), literals
		// when it parses (42000).
		{"CALL quiver.fts.search($n, 'x') YIELD node RETURN node", "22023", "argument index of procedure quiver.fts.search must be STRING, not INTEGER"},
		{"CALL quiver.fts.search('articles', $n) YIELD node RETURN node", "22023", "argument query of procedure quiver.fts.search must be STRING"},
		{"CALL quiver.fts.search(1, 'x') YIELD node RETURN node", "42000", "must be STRING"},
		{"CALL quiver.fts.search('articles', 'x', $n) YIELD node RETURN node", "22023", "argument options of procedure quiver.fts.search must be MAP"},
		{"CALL quiver.fts.search('articles', 'x', {skip: -5}) YIELD node RETURN node", "22023", "skip"},
		{"CALL quiver.fts.search('articles', 'x', {limit: 1.5}) YIELD node RETURN node", "22023", "limit"},
		{"CALL quiver.fts.search('articles', 'x', {limit: 'all'}) YIELD node RETURN node", "22023", "limit"},
		{"CALL quiver.fts.search('articles', 'x', {limit: 9223372036854775807}) YIELD node RETURN node", "22023", "limit"},
		{"CALL quiver.fts.search('articles', 'x', {limit: 600000, skip: 600000}) YIELD node RETURN node", "22023", "skip + limit"},
		{"CALL quiver.fts.search('articles', 'x', {top: 5}) YIELD node RETURN node", "22023", "unknown fulltext search option"},
		{"CALL db.index.fulltext.queryNodes('nope', 'x') YIELD node RETURN node", "42S02", "nope"},
		// An index of another type is not a FULLTEXT index.
		{"CALL quiver.fts.search('article_year', 'x') YIELD node RETURN node", "42S02", "no FULLTEXT index named article_year"},
		// CREATE.
		{"CREATE FULLTEXT INDEX bad FOR (n:Article) ON EACH [n.title] OPTIONS {analyzer: 5}", "42000", "FULLTEXT OPTIONS take {analyzer: 'name'} (line 1, column 80)"},
		{"CREATE FULLTEXT INDEX bad FOR (n:Article) ON EACH [n.title] OPTIONS {analyser: 'english'}", "42000", "FULLTEXT OPTIONS take {analyzer: 'name'}"},
	} {
		res, err := db.Query(context.Background(), c.q, engine.Params{"q": strings.Repeat("a ", 40000), "n": int64(7)})
		if err == nil {
			_, err = drain(res)
		}
		e, ok := engine.AsError(err)
		if !ok || e.Code != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err = %v (%+v), want %s mentioning %q", c.q, err, e, c.code, c.msg)
		}
	}
}

// A transaction sees its own writes, rollbacks never show, and a
// transaction reading one snapshot does not see later commits.
func TestFullTextVisibility(t *testing.T) {
	db := openFTS(t)
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, tx, "CREATE (:Article {title: 'Quantum graph walks'})", nil)
	mustQuery(t, tx, "MATCH (a:Article {title: 'Cooking'}) SET a.body = 'graph of flavours'", nil)
	if got := sorted(ftsTitles(t, tx, "graph")); strings.Join(got, ",") != "'Cooking','Graph databases','Quantum graph walks','Vector search'" {
		t.Errorf("own writes: %v", got)
	}
	if got := ftsTitles(t, tx, "roasted"); len(got) != 0 {
		t.Errorf("own update: the old text still matches: %v", got)
	}
	if got := ftsTitles(t, db, "quantum"); len(got) != 0 {
		t.Errorf("uncommitted write seen outside: %v", got)
	}
	tx.Rollback()
	if got := ftsTitles(t, db, "quantum OR flavours"); len(got) != 0 {
		t.Errorf("rolled-back writes seen: %v", got)
	}

	old, err := db.BeginTransaction(engine.TransactionOptions{Isolation: engine.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Rollback()
	if got := ftsTitles(t, old, "cooking"); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	mustQuery(t, db, "MATCH (a:Article {title: 'Cooking'}) SET a.title = 'Baking'", nil)
	mustQuery(t, db, "CREATE (:Article {title: 'Cooking again'})", nil)
	if got := ftsTitles(t, db, "cooking"); strings.Join(got, ",") != "'Cooking again'" {
		t.Errorf("committed: %v", got)
	}
	if got := ftsTitles(t, db, "baking"); len(got) != 1 {
		t.Errorf("committed update: %v", got)
	}
	if got := ftsTitles(t, old, "cooking"); strings.Join(got, ",") != "'Cooking'" {
		t.Errorf("older snapshot sees: %v", got)
	}
	if got := ftsTitles(t, old, "baking"); len(got) != 0 {
		t.Errorf("older snapshot sees a later update: %v", got)
	}
	mustQuery(t, db, "MATCH (a:Article {title: 'Baking'}) DETACH DELETE a", nil)
	if got := ftsTitles(t, db, "baking"); len(got) != 0 {
		t.Errorf("deleted node found: %v", got)
	}
}

func TestFullTextRelationshipsAndDrop(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "CREATE (a:P)-[:REVIEWED {text: 'excellent service'}]->(b:P), (a)-[:REVIEWED {text: 'poor'}]->(b)", nil)
	mustQuery(t, db, "CREATE FULLTEXT INDEX reviews FOR ()-[r:REVIEWED]-() ON EACH [r.text] OPTIONS {analyzer: 'english'}", nil)
	awaitOnline(t, db, "reviews")
	got := mustQuery(t, db, "CALL db.index.fulltext.queryRelationships('reviews', 'services') YIELD relationship RETURN relationship.text", nil)
	if strings.Join(got, ",") != "'excellent service'" {
		t.Errorf("english stemming: %v", got)
	}
	mustQuery(t, db, "DROP INDEX reviews", nil)
	if _, err := db.Query(context.Background(), "CALL quiver.fts.search('reviews', 'poor') YIELD relationship RETURN relationship", nil); err == nil {
		t.Errorf("search on a dropped index answered")
	}
}

// After a restart the index is rebuilt from the recovered data and
// answers as a fresh build does.
func TestFullTextReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "CREATE FULLTEXT INDEX notes FOR (n:Note) ON EACH [n.text]", nil)
	mustQuery(t, db, "UNWIND range(1, 50) AS i CREATE (:Note {text: 'note number ' + toString(i) + CASE WHEN i % 5 = 0 THEN ' fizz' ELSE '' END})", nil)
	mustQuery(t, db, "MATCH (n:Note) WHERE n.text ENDS WITH '10 fizz' SET n.text = 'changed'", nil)
	q := "CALL quiver.fts.search('notes', 'fizz OR changed') YIELD node RETURN node.text ORDER BY node.text"
	awaitOnline(t, db, "notes")
	before := mustQuery(t, db, q, nil)
	if len(before) != 10 {
		t.Fatalf("before: %v", before)
	}
	db.Close()
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	awaitOnline(t, db, "notes")
	if after := mustQuery(t, db, q, nil); strings.Join(after, "|") != strings.Join(before, "|") {
		t.Errorf("after reopen %v, before %v", after, before)
	}
}

// The export's schema script recreates FULLTEXT indexes.
func TestFullTextSchemaScript(t *testing.T) {
	db := openTestDB(t)
	n, err := db.ApplySchemaScript(context.Background(),
		"CREATE FULLTEXT INDEX `reviews` FOR ()-[n:`REVIEWED`]-() ON EACH [n.`text`] OPTIONS {analyzer: 'english'};\n")
	if err != nil || n != 1 {
		t.Fatalf("applied %d: %v", n, err)
	}
	got := mustQuery(t, db, "SHOW INDEXES", nil)
	if len(got) != 1 || !strings.Contains(got[0], "'reviews' | 'FULLTEXT' | 'REVIEWED' | 'text' | 'RELATIONSHIP'") {
		t.Errorf("SHOW INDEXES = %v", got)
	}
}

// Under concurrent writers, a search in a transaction answers exactly
// what a scan of the same snapshot finds: no later commit, no missing
// one, and the transaction's own write.
func TestFullTextConcurrentSnapshots(t *testing.T) {
	db := openTestDB(t)
	words := strings.Fields("amber birch cedar dune ember fjord")
	mustQuery(t, db, "UNWIND range(0, 59) AS i CREATE (:Note {k: i, body: 'amber birch'})", nil)
	mustQuery(t, db, "CREATE FULLTEXT INDEX notes FOR (n:Note) ON EACH [n.body]", nil)
	awaitOnline(t, db, "notes")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	for w := range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			// Bounded: an unthrottled writer outruns the index's
			// apply (docs/search.md), and each search waits for it.
			for i := 0; i < 150 && ctx.Err() == nil; i++ {
				k := (i*7 + w*13) % 60
				body := words[(i+w)%len(words)] + " " + words[(i*3+w)%len(words)]
				res, err := db.Query(ctx, "MATCH (n:Note {k: $k}) SET n.body = $b", engine.Params{"k": int64(k), "b": body})
				if err == nil {
					_, err = drain(res)
				}
				if err != nil && ctx.Err() == nil {
					t.Errorf("writer: %v", err)
					return
				}
			}
		}()
	}
	for round := range 30 {
		tx, err := db.BeginTransaction(engine.TransactionOptions{Isolation: engine.RepeatableRead})
		if err != nil {
			t.Fatal(err)
		}
		word := words[round%len(words)]
		if round%3 == 0 {
			mustQuery(t, tx, "CREATE (:Note {k: -1, body: $w})", engine.Params{"w": word + " own"})
		}
		got := sorted(mustQuery(t, tx, "CALL quiver.fts.search('notes', $w, {limit: 1000}) YIELD node RETURN node.k", engine.Params{"w": word}))
		want := sorted(mustQuery(t, tx, "MATCH (n:Note) WHERE ' ' + n.body + ' ' CONTAINS ' ' + $w + ' ' RETURN n.k", engine.Params{"w": word}))
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("round %d, %q: search %v, scan %v", round, word, got, want)
		}
		tx.Rollback()
	}
	cancel()
	for range 3 {
		<-done
	}
}

// A FULLTEXT index holds its documents against the server's memory
// budget: one too big for it fails (FAILED, 53200 on every search), the
// database goes on, and dropping the index gives the budget back.
func TestFullTextServerBudget(t *testing.T) {
	db := openTestDBWith(t, engine.Options{MaxMemory: 2 << 20})
	mustQuery(t, db, "UNWIND range(1, 500) AS i CREATE (:Note {text: $text + ' ' + toString(i)})",
		engine.Params{"text": strings.Repeat("lorem ipsum dolor sit amet ", 10)})
	mustQuery(t, db, "CREATE FULLTEXT INDEX notes FOR (n:Note) ON EACH [n.text]", nil)
	deadline := time.Now().Add(30 * time.Second)
	for {
		rows := mustQuery(t, db, "CALL db.indexes() YIELD name, state WHERE name = 'notes' RETURN state", nil)
		if len(rows) == 1 && rows[0] == "'FAILED'" {
			break
		}
		if len(rows) != 1 || rows[0] == "'ONLINE'" || time.Now().After(deadline) {
			t.Fatalf("500 documents of 50 words under a 2 MB budget: %v, want FAILED", rows)
		}
		time.Sleep(5 * time.Millisecond) // polling a real condition with a deadline
	}
	wantCode(t, queryErr(t, db, "CALL quiver.fts.search('notes', 'lorem') YIELD node RETURN node", nil), "53200", "search on an index that failed for memory")
	if got := mustQuery(t, db, "MATCH (n:Note) RETURN count(*)", nil); len(got) != 1 || got[0] != "500" {
		t.Fatalf("count = %v", got)
	}
	mustQuery(t, db, "DROP INDEX notes", nil)
	for db.MemoryHeld() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a dropped index holds %d bytes", db.MemoryHeld())
		}
		time.Sleep(time.Millisecond) // polling a real condition with a deadline
	}
	mustQuery(t, db, "MATCH (n:Note) WHERE n.text ENDS WITH ' 7' OR n.text ENDS WITH ' 8' SET n:Few", nil)
	mustQuery(t, db, "CREATE FULLTEXT INDEX fewer FOR (n:Few) ON EACH [n.text]", nil)
	awaitOnline(t, db, "fewer")
	if got := mustQuery(t, db, "CALL quiver.fts.search('fewer', 'lorem') YIELD node RETURN count(*)", nil); len(got) != 1 || got[0] != "2" {
		t.Fatalf("a small index under the same budget: %v", got)
	}
	if db.MemoryHeld() == 0 {
		t.Fatal("an online index holds nothing of the budget")
	}
}

// A search charges the hits it may hold to the query: a limit whose hit
// lists pass max_memory_per_query fails with 53200 before searching.
func TestFullTextSearchCharged(t *testing.T) {
	db := openTestDBWith(t, engine.Options{MaxMemoryPerQuery: 16 << 20})
	mustQuery(t, db, "CREATE (:Note {text: 'one small note'})", nil)
	mustQuery(t, db, "CREATE FULLTEXT INDEX notes FOR (n:Note) ON EACH [n.text]", nil)
	awaitOnline(t, db, "notes")
	wantCode(t, queryErr(t, db, "CALL quiver.fts.search('notes', 'note', {limit: 1000000}) YIELD node RETURN node", nil), "53200", "a million hits under 16 MB")
	if got := mustQuery(t, db, "CALL quiver.fts.search('notes', 'note', {limit: 1000}) YIELD node RETURN count(*)", nil); len(got) != 1 || got[0] != "1" {
		t.Fatalf("a search within the limit: %v", got)
	}
}

// The database answers reads and writes while a FULLTEXT index rebuilds
// at open; a search on the index answers 08006 until it is ONLINE.
func TestFullTextAnswersWhilePopulating(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	words := make([]string, 50)
	for i := range words {
		words[i] = "w" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	mustQuery(t, db, "UNWIND range(1, 2000) AS i CREATE (:Doc {text: $text + ' n' + toString(i)})", engine.Params{"text": strings.Join(words, " ")})
	mustQuery(t, db, "CREATE FULLTEXT INDEX docs FOR (d:Doc) ON EACH [d.text]", nil)
	db.Close() // the definition is durable; the index is rebuilt at open
	// The rebuild waits until the statements below ran.
	release := make(chan struct{})
	index.PopulateGate = func(ctx context.Context) {
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
	defer func() { index.PopulateGate = nil }()
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := mustQuery(t, db, "MATCH (d:Doc) RETURN count(*)", nil); len(got) != 1 || got[0] != "2000" {
		t.Fatalf("count while populating = %v", got)
	}
	mustQuery(t, db, "CREATE (:Doc {text: 'fresh'})", nil)
	_, searchErr := db.Query(context.Background(), "CALL quiver.fts.search('docs', 'fresh') YIELD node RETURN node", nil)
	if st := mustQuery(t, db, "CALL db.indexes() YIELD state RETURN state", nil); st[0] != "'POPULATING'" {
		t.Fatalf("state while the rebuild is held = %s", st[0])
	}
	wantCode(t, searchErr, "08006", "a search while populating")
	close(release)
	awaitOnline(t, db, "docs")
	if got := mustQuery(t, db, "CALL quiver.fts.search('docs', 'fresh') YIELD node RETURN node.text", nil); len(got) != 1 {
		t.Fatalf("the write made while populating: %v", got)
	}
}
