package index

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// fakeKind's indexes record what they were given; Populate blocks until
// release is closed, after reporting half its progress.
type fakeKind struct {
	release chan struct{}
	mu      sync.Mutex
	built   []*fakeIndex
}

func (k *fakeKind) Check(def *catalog.Index) error {
	if def.Analyzer == "bad" {
		return errs.DataCode(errs.CodeInvalidParam, "bad")
	}
	return nil
}

func (k *fakeKind) New(def *catalog.Index, _ *catalog.Catalog) (Index, error) {
	x := &fakeIndex{k: k}
	k.mu.Lock()
	k.built = append(k.built, x)
	k.mu.Unlock()
	return x, nil
}

type fakeIndex struct {
	k      *fakeKind
	mu     sync.Mutex
	popTS  uint64
	tss    []uint64
	closed bool
}

func (x *fakeIndex) Populate(ctx context.Context, snap *storage.Snapshot, prog *Progress) error {
	prog.Total.Store(4)
	prog.Done.Store(2)
	select {
	case <-x.k.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	x.mu.Lock()
	x.popTS = snap.TS()
	x.mu.Unlock()
	prog.Done.Store(4)
	return nil
}

func (x *fakeIndex) Apply(recs []*storage.CommitRecord) error {
	x.mu.Lock()
	for _, rec := range recs {
		x.tss = append(x.tss, rec.TS)
	}
	x.mu.Unlock()
	return nil
}

func (x *fakeIndex) Close() error {
	x.mu.Lock()
	x.closed = true
	x.mu.Unlock()
	return nil
}

func commit(t *testing.T, s *storage.Store, f func(tx *storage.Tx) error) uint64 {
	t.Helper()
	tx := s.Begin()
	if err := f(tx); err != nil {
		t.Fatal(err)
	}
	ts, err := tx.Commit()
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// An index populates in the background (POPULATING, with its percent),
// then applies every commit after its build version in order, and a
// search at a snapshot waits for that snapshot's commit.
func TestManagerLifecycle(t *testing.T) {
	s := storage.New()
	cat := s.Catalog()
	k := &fakeKind{release: make(chan struct{})}
	m := NewManager(s, cat, map[catalog.IndexType]Kind{catalog.FullText: k})
	defer m.Close()
	l := cat.EnsureLabel("L")
	node := func(tx *storage.Tx) error { _, err := tx.CreateNode([]catalog.LabelID{l}, nil, nil); return err }
	commit(t, s, node) // before any secondary index: not watched
	created := commit(t, s, func(tx *storage.Tx) error {
		return tx.CreateIndex(catalog.Index{Name: "ft", Type: catalog.FullText, Label: "L", Keys: []string{"p"}})
	})
	def := s.Snapshot().Schema().Index("ft")
	for deadline := time.Now().Add(30 * time.Second); ; {
		st, pct := m.State(def)
		if st == StatePopulating && pct == 50 {
			break
		}
		if st != StatePopulating || time.Now().After(deadline) {
			t.Fatalf("state %s %.0f%%, want POPULATING 50%%", st, pct)
		}
		time.Sleep(time.Millisecond) // polling a real condition
	}
	e, err := m.Lookup(def)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Await(context.Background(), created); err == nil {
		t.Fatalf("Await on a populating index answered")
	}
	later := []uint64{commit(t, s, node), commit(t, s, node)}
	close(k.release)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.AwaitOnline(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Await(ctx, later[1]); err != nil {
		t.Fatal(err)
	}
	x := k.built[0]
	x.mu.Lock()
	if x.popTS != created || len(x.tss) != 2 || x.tss[0] != later[0] || x.tss[1] != later[1] {
		t.Errorf("populated at %d (want %d), applied %v (want %v)", x.popTS, created, x.tss, later)
	}
	x.mu.Unlock()
	if st, pct := m.State(def); st != StateOnline || pct != 100 {
		t.Errorf("state %s %.0f%%", st, pct)
	}
	if err := e.Await(ctx, created-1); err == nil {
		t.Errorf("a snapshot older than the build answered")
	}

	commit(t, s, func(tx *storage.Tx) error { return tx.DropIndex("ft") })
	if _, err := m.Lookup(def); err == nil {
		t.Errorf("dropped index still open")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		x.mu.Lock()
		closed := x.closed
		x.mu.Unlock()
		if closed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("dropped index never closed")
		}
		time.Sleep(time.Millisecond) // polling a real condition
	}
}

// Open rebuilds the indexes the store has; Check vets definitions.
func TestManagerOpensExistingIndexes(t *testing.T) {
	s := storage.New()
	cat := s.Catalog()
	l := cat.EnsureLabel("L")
	k := cat.EnsureKey("p")
	commit(t, s, func(tx *storage.Tx) error {
		if _, err := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k}, []vector.Value{"x"}); err != nil {
			return err
		}
		return tx.CreateIndex(catalog.Index{Name: "ft", Type: catalog.FullText, Label: "L", Keys: []string{"p"}})
	})
	fk := &fakeKind{release: make(chan struct{})}
	close(fk.release)
	m := NewManager(s, cat, map[catalog.IndexType]Kind{catalog.FullText: fk})
	defer m.Close()
	e, err := m.Lookup(s.Snapshot().Schema().Index("ft"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := e.AwaitOnline(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m.Check(&catalog.Index{Type: catalog.FullText, Analyzer: "bad"}); err == nil {
		t.Errorf("Check passed a bad definition")
	}
}
