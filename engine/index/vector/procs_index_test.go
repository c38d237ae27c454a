package vectorindex

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// stuckKind's indexes never finish populating (until their context
// ends): the index stays POPULATING.
type stuckKind struct{ Kind }

func (k stuckKind) New(def *catalog.Index, cat *catalog.Catalog) (index.Index, error) {
	ix, err := k.Kind.New(def, cat)
	if err != nil {
		return nil, err
	}
	return stuckIndex{ix}, nil
}

type stuckIndex struct{ index.Index }

func (x stuckIndex) Populate(ctx context.Context, _ *storage.Snapshot, prog *index.Progress) error {
	prog.Total.Store(10)
	<-ctx.Done()
	return ctx.Err()
}

// While an index populates, a search on it answers by exact search over
// the snapshot: the rows of the 'Label.property' form, filter included.
func TestSearchWhilePopulating(t *testing.T) {
	s := storage.New()
	cat := s.Catalog()
	doc, key, lang := cat.EnsureLabel("Doc"), cat.EnsureKey("e"), cat.EnsureKey("lang")
	m := index.NewManager(s, cat, map[catalog.IndexType]index.Kind{catalog.Vector: stuckKind{}})
	defer m.Close()
	tx := s.Begin()
	for i := range 30 {
		v := []vector.Value{float64(i % 7), float64(i % 5), 1.0}
		if _, err := tx.CreateNode([]catalog.LabelID{doc}, []catalog.KeyID{key, lang}, []vector.Value{v, []string{"en", "fr"}[i%2]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.CreateIndex(catalog.Index{Name: "docs", Type: catalog.Vector, Label: "Doc", Keys: []string{"e"},
		Vector: &catalog.VectorOptions{Dimensions: 3, Similarity: "euclidean"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := s.Begin()
	defer r.Rollback()
	c := &procs.Context{Ctx: context.Background(), Reader: r, Catalog: cat, Parallelism: 2}
	q := []vector.Value{2.0, 2.0, 1.0}
	for _, filter := range []vector.Value{nil, map[string]vector.Value{"lang": "fr"}} {
		opts := map[string]vector.Value{"similarity": "euclidean"}
		var idxOpts vector.Value
		if filter != nil {
			opts["filter"] = filter
			idxOpts = map[string]vector.Value{"filter": filter}
		}
		got, err := search(c, m, "quiver.vector.search", "docs", q, int64(5), idxOpts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := search(c, m, "quiver.vector.search", "Doc.e", q, int64(5), opts)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || len(got) != 5 {
			t.Errorf("filter %v: %v, want %v", filter, got, want)
		}
	}
	if st, _ := m.State(r.Schema().Index("docs")); st != index.StatePopulating {
		t.Errorf("state %s, want POPULATING", st)
	}
}
