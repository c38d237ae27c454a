package fulltext

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// fiftyWords is a text of 50 words: 7 KB charged.
var fiftyWords = strings.Repeat("lorem ipsum dolor sit amet ", 10)

func createDocs(t *testing.T, s *storage.Store, n int) {
	t.Helper()
	cat := s.Catalog()
	l, k := cat.EnsureLabel("Doc"), cat.EnsureKey("text")
	tx := s.Begin()
	for range n {
		if _, err := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k}, []vector.Value{fiftyWords}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

func createIndex(t *testing.T, s *storage.Store) {
	t.Helper()
	tx := s.Begin()
	if err := tx.CreateIndex(catalog.Index{Name: "docs", Type: catalog.FullText, Label: "Doc", Keys: []string{"text"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// awaitFailed waits until the index is FAILED and has given its memory
// back, and returns its error.
func awaitFailed(t *testing.T, s *storage.Store, m *index.Manager, b *memory.Budget) error {
	t.Helper()
	e, err := m.Lookup(s.Snapshot().Schema().Index("docs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = e.AwaitOnline(ctx)
	for err == nil { // online first, then failed by an Apply
		err = e.Await(ctx, s.Snapshot().TS())
	}
	for b.Held() != 0 || e.Memory().Held() != 0 {
		if ctx.Err() != nil {
			t.Fatalf("a failed index still holds %d bytes of the budget", b.Held())
		}
		time.Sleep(time.Millisecond) // polling a real condition
	}
	return err
}

// An index holds its documents against the server's budget: a build
// that does not fit fails the index (FAILED, 53200) and gives back what
// it held, as a drop does; one that fits holds about its documents'
// estimate.
func TestIndexMemoryBudget(t *testing.T) {
	kinds := map[catalog.IndexType]index.Kind{catalog.FullText: Kind{}}

	// A populate too big for the budget.
	s := storage.New()
	b := memory.NewBudget(1 << 20)
	m := index.NewManagerWith(s, s.Catalog(), kinds, b)
	defer m.Close()
	createDocs(t, s, 300) // ~2 MB of documents
	createIndex(t, s)
	err := awaitFailed(t, s, m, b)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory || !strings.Contains(err.Error(), "index docs needs more memory") {
		t.Fatalf("populate over the budget: %v, want 53200", err)
	}
	if st, _ := m.State(s.Snapshot().Schema().Index("docs")); st != index.StateFailed {
		t.Fatalf("state %s, want FAILED", st)
	}

	// A populate that fits, then commits that do not.
	s = storage.New()
	b = memory.NewBudget(1 << 20)
	m2 := index.NewManagerWith(s, s.Catalog(), kinds, b)
	defer m2.Close()
	createDocs(t, s, 10)
	createIndex(t, s)
	e, err := m2.Lookup(s.Snapshot().Schema().Index("docs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.AwaitOnline(ctx); err != nil {
		t.Fatal(err)
	}
	if h := b.Held(); h < 10*docBytes || h != e.Memory().Held() {
		t.Fatalf("10 documents hold %d bytes (the index says %d)", h, e.Memory().Held())
	}
	createDocs(t, s, 300)
	err = awaitFailed(t, s, m2, b)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("apply over the budget: %v, want 53200", err)
	}
}

// A drop gives back what the index held.
func TestIndexMemoryReleasedAtDrop(t *testing.T) {
	s := storage.New()
	b := memory.NewBudget(1 << 30)
	m := index.NewManagerWith(s, s.Catalog(), map[catalog.IndexType]index.Kind{catalog.FullText: Kind{}}, b)
	defer m.Close()
	createDocs(t, s, 5)
	createIndex(t, s)
	e, err := m.Lookup(s.Snapshot().Schema().Index("docs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.AwaitOnline(ctx); err != nil {
		t.Fatal(err)
	}
	if b.Held() == 0 {
		t.Fatal("an online index holds nothing")
	}
	tx := s.Begin()
	if err := tx.DropIndex("docs"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for b.Held() != 0 {
		if ctx.Err() != nil {
			t.Fatalf("a dropped index holds %d bytes", b.Held())
		}
		time.Sleep(time.Millisecond) // polling a real condition
	}
}

// A transaction's own writes are indexed in an overlay charged to the
// query: a small query budget stops the search with 53200.
func TestOverlayCharged(t *testing.T) {
	st := newStore(t)
	st.create(t, "committed text")
	w := st.s.Begin()
	defer w.Rollback()
	for range 20 {
		if _, err := w.CreateNode([]catalog.LabelID{st.doc}, []catalog.KeyID{st.key}, []vector.Value{fiftyWords}); err != nil {
			t.Fatal(err)
		}
	}
	st.search(t, w, "lorem") // waits for the index
	x := mustIndex(t, st, w)
	mem := &memory.Tracker{Limit: 100 << 10}
	_, err := x.Search(context.Background(), "lorem", w.BaseTS(), w, 0, 10, mem)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("overlay of 20 documents under 100 KB: %v, want 53200", err)
	}
	if mem.Used() != 0 {
		t.Fatalf("the search left %d bytes charged", mem.Used())
	}
	mem = &memory.Tracker{Limit: 1 << 20}
	hits, err := x.Search(context.Background(), "lorem", w.BaseTS(), w, 0, 100, mem)
	if err != nil || len(hits) != 20 || mem.Peak() < 20*docBytes || mem.Used() != 0 {
		t.Fatalf("overlay search: %d hits, %v; peak %d used %d", len(hits), err, mem.Peak(), mem.Used())
	}
}

func mustIndex(t *testing.T, st *store, tx *storage.Tx) *Index {
	t.Helper()
	e, err := st.m.Lookup(tx.Schema().Index("docs"))
	if err != nil {
		t.Fatal(err)
	}
	return e.Index().(*Index)
}

// Scores are BM25: bleve explains a hit with the field length over the
// average field length (upsidedown, bleve.NewMemOnly, has no field
// lengths: bleve silently scored it with TF-IDF).
func TestScoresAreBM25(t *testing.T) {
	def := &catalog.Index{Name: "x", Type: catalog.FullText, Label: "L", Keys: []string{"t"}}
	m, err := indexMapping(def)
	if err != nil {
		t.Fatal(err)
	}
	bi, err := newBleve(m)
	if err != nil {
		t.Fatal(err)
	}
	defer bi.Close()
	for i, s := range []string{"red apple", "green apple pie with cream", "blue sky"} {
		if err := bi.Index(docID(uint64(i), 0), map[string]any{"t": s}); err != nil {
			t.Fatal(err)
		}
	}
	req := bleve.NewSearchRequest(bleve.NewMatchQuery("apple"))
	req.Explain = true
	res, err := bi.Search(req)
	if err != nil || len(res.Hits) != 2 {
		t.Fatalf("%v %v", res, err)
	}
	if ex := res.Hits[0].Expl.String(); !strings.Contains(ex, "as per bm25 model") {
		t.Fatalf("not BM25: %s", ex)
	}
}
