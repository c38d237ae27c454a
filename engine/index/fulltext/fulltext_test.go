package fulltext

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

func TestParseQueryErrors(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"", "column 1: empty query"},
		{"a AND", "column 6: expected a word"},
		{"(a OR b", "column 8: expected ) to close ( at column 1"},
		{`title:"x`, "column 7: unterminated phrase"},
		{"other:x", "column 1: unknown field other"},
		{"ab~7", "column 4: fuzziness"},
		{"a*b", "column 2: unexpected"},
		{"title:", "column 7: expected a word or a phrase after title:"},
		{"a )", "column 3: unexpected ')'"},
	} {
		_, err := parseQuery(c.q, []string{"title", "body"})
		e, ok := errs.As(err)
		if !ok || e.Code != errs.CodeInvalidParam || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parse %q: %v, want 22023 with %q", c.q, err, c.want)
		}
	}
	for _, q := range []string{"a", "a b", "a AND b OR c", "NOT a", "-a +b", `title:"a b"`, "ab*", "ab~", "ab~1", "(a) AND (b OR -c)"} {
		if _, err := parseQuery(q, []string{"title"}); err != nil {
			t.Errorf("parse %q: %v", q, err)
		}
	}
}

func TestCheckAnalyzers(t *testing.T) {
	for _, a := range Analyzers() {
		def := &catalog.Index{Name: "x", Type: catalog.FullText, Label: "L", Keys: []string{"t"}, Analyzer: a}
		ix, err := Kind{}.New(def, catalog.New())
		if err != nil {
			t.Fatalf("analyzer %s: %v", a, err)
		}
		ix.Close()
	}
	err := Kind{}.Check(&catalog.Index{Analyzer: "nope"})
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeInvalidParam {
		t.Fatalf("unknown analyzer: %v", err)
	}
}

// store is a storage store with a FULLTEXT index on :Doc(text) kept by
// a Manager.
type store struct {
	s   *storage.Store
	m   *index.Manager
	doc catalog.LabelID
	key catalog.KeyID
}

func newStore(t *testing.T) *store {
	s := storage.New()
	cat := s.Catalog()
	st := &store{s: s, doc: cat.EnsureLabel("Doc"), key: cat.EnsureKey("text")}
	st.m = index.NewManager(s, cat, map[catalog.IndexType]index.Kind{catalog.FullText: Kind{}})
	t.Cleanup(st.m.Close)
	tx := s.Begin()
	if err := tx.CreateIndex(catalog.Index{Name: "docs", Type: catalog.FullText, Label: "Doc", Keys: []string{"text"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return st
}

func (st *store) create(t *testing.T, text string) uint64 {
	tx := st.s.Begin()
	id, err := tx.CreateNode([]catalog.LabelID{st.doc}, []catalog.KeyID{st.key}, []vector.Value{text})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return id
}

// search answers q at the reader's snapshot (a Tx), waiting for the
// index as the procedures do.
func (st *store) search(t *testing.T, tx *storage.Tx, q string) []uint64 {
	t.Helper()
	def := tx.Schema().Index("docs")
	e, err := st.m.Lookup(def)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.AwaitOnline(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Await(ctx, tx.BaseTS()); err != nil {
		t.Fatal(err)
	}
	hits, err := e.Index().(*Index).Search(ctx, q, tx.BaseTS(), tx, 0, 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for _, h := range hits {
		ids = append(ids, h.ID)
	}
	slices.Sort(ids)
	return ids
}

// The index answers at the reader's snapshot: older snapshots miss
// later commits and keep text later commits replaced.
func TestSnapshotVisibility(t *testing.T) {
	st := newStore(t)
	a := st.create(t, "red apple")
	old := st.s.Begin() // reads the version with only a
	defer old.Rollback()
	b := st.create(t, "green apple")
	tx := st.s.Begin()
	if err := tx.SetNodeProps(a, []catalog.KeyID{st.key}, []vector.Value{"blue berry"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	now := st.s.Begin()
	defer now.Rollback()
	if got := st.search(t, now, "apple"); !slices.Equal(got, []uint64{b}) {
		t.Errorf("now apple = %v, want [%d]", got, b)
	}
	if got := st.search(t, old, "apple"); !slices.Equal(got, []uint64{a}) {
		t.Errorf("old apple = %v, want [%d]", got, a)
	}
	if got := st.search(t, old, "berry"); len(got) != 0 {
		t.Errorf("old berry = %v", got)
	}
	// Own writes: a delete and a create, overlaid.
	w := st.s.Begin()
	defer w.Rollback()
	if _, _, err := w.DeleteNode(b, true); err != nil {
		t.Fatal(err)
	}
	c, err := w.CreateNode([]catalog.LabelID{st.doc}, []catalog.KeyID{st.key}, []vector.Value{"apple pie"})
	if err != nil {
		t.Fatal(err)
	}
	if got := st.search(t, w, "apple"); !slices.Equal(got, []uint64{c}) {
		t.Errorf("own writes apple = %v, want [%d]", got, c)
	}
	if got := st.search(t, now, "apple"); !slices.Equal(got, []uint64{b}) {
		t.Errorf("others see uncommitted writes: %v", got)
	}
}

// Superseded versions are pruned after RetainVersions; a snapshot that
// could need one then fails instead of missing it.
func TestPruneSupersededVersions(t *testing.T) {
	defer func(d time.Duration) { RetainVersions = d }(RetainVersions)
	RetainVersions = -time.Nanosecond // prune at the next Apply, whatever the clock's resolution
	st := newStore(t)
	a := st.create(t, "red apple")
	old := st.s.Begin()
	defer old.Rollback()
	if got := st.search(t, old, "red"); !slices.Equal(got, []uint64{a}) {
		t.Fatalf("old red = %v", got)
	}
	tx := st.s.Begin()
	if err := tx.SetNodeProps(a, []catalog.KeyID{st.key}, []vector.Value{"blue berry"}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// The replacing commit is applied before the next one is made (a
	// search waits for its snapshot), so that one's Apply finds the
	// superseded "red apple" older than RetainVersions and prunes it.
	applied := st.s.Begin()
	st.search(t, applied, "blue")
	applied.Rollback()
	st.create(t, "other")
	now := st.s.Begin()
	defer now.Rollback()
	if got := st.search(t, now, "red OR blue"); !slices.Equal(got, []uint64{a}) {
		t.Errorf("now = %v", got)
	}
	def := old.Schema().Index("docs")
	e, _ := st.m.Lookup(def)
	_, err := e.Index().(*Index).Search(context.Background(), "red", old.BaseTS(), old, 0, 10, nil)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeUnavailable {
		t.Errorf("search at a pruned snapshot: %v, want 08006", err)
	}
}
