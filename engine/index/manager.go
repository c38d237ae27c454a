package index

import (
	"context"
	"sync"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// States an index is in, as db.indexes() reports them.
const (
	StatePopulating = "POPULATING"
	StateOnline     = "ONLINE"
	StateFailed     = "FAILED"
)

// Manager keeps the secondary indexes of one store (see the package
// comment).
type Manager struct {
	store *storage.Store
	cat   *catalog.Catalog
	kinds map[catalog.IndexType]Kind
	// budget is the server's memory budget the indexes hold their
	// structures against (nil: none).
	budget Budget
	// running counts the indexes' goroutines: Close waits for them, so
	// no background work outlives the database.
	running sync.WaitGroup
	// mu guards the open indexes; the commit sink takes it, briefly.
	mu struct {
		sync.Mutex
		open   map[string]*Entry
		closed bool
		// early holds the commits sunk before NewManager opened the
		// indexes of head (ready): NewManager replays them.
		early []*storage.CommitRecord
		ready bool
	}
}

// NewManager starts maintaining the secondary indexes of store's latest
// version and of every later commit. Call it once the store is recovered.
func NewManager(store *storage.Store, cat *catalog.Catalog, kinds map[catalog.IndexType]Kind) *Manager {
	return NewManagerWith(store, cat, kinds, nil)
}

// NewManagerWith is NewManager with the server's memory budget, which
// the indexes hold their structures against (memory.go); nil for none.
func NewManagerWith(store *storage.Store, cat *catalog.Catalog, kinds map[catalog.IndexType]Kind, budget Budget) *Manager {
	m := &Manager{store: store, cat: cat, kinds: kinds, budget: budget}
	m.mu.open = map[string]*Entry{}
	// Watch first, then read head: a commit sunk in between is kept in
	// early and replayed (those at or before head are skipped), so none
	// is lost. mu is not held while watching: the sink runs under the
	// store's feed lock and takes mu, so the other order would deadlock
	// with a commit (a replicated one) finishing meanwhile.
	store.WatchIndexCommits(m.sink)
	m.mu.Lock()
	defer m.mu.Unlock()
	head := store.Snapshot()
	m.reconcileLocked(head)
	m.mu.ready = true
	for _, rec := range m.mu.early {
		if rec.TS > head.TS() { // head holds the others, schema included
			m.sinkLocked(rec)
		}
	}
	m.mu.early = nil
	return m
}

// Check vets a secondary index definition (admin.Env.CheckIndex).
func (m *Manager) Check(def *catalog.Index) error {
	k, ok := m.kinds[def.Type]
	if !ok {
		return errs.NotSupported("%s indexes are not supported", def.Type)
	}
	return k.Check(def)
}

// sink receives every durable commit in order (storage.CommitSink): it
// only queues, and opens or closes indexes when the schema changed.
func (m *Manager) sink(rec *storage.CommitRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mu.closed {
		return
	}
	if !m.mu.ready {
		m.mu.early = append(m.mu.early, rec)
		return
	}
	m.sinkLocked(rec)
}

func (m *Manager) sinkLocked(rec *storage.CommitRecord) {
	for _, e := range m.mu.open {
		e.enqueue(rec)
	}
	for i := range rec.Ops {
		if k := rec.Ops[i].Kind; k == storage.OpCreateIndex || k == storage.OpDropIndex {
			m.reconcileLocked(rec.Version)
			break
		}
	}
}

// reconcileLocked closes the open indexes v's schema no longer has and
// opens those it has that are not open, populating them from v.
func (m *Manager) reconcileLocked(v *storage.Snapshot) {
	sc := v.Schema()
	for name, e := range m.mu.open {
		if d := sc.Index(name); d == nil || !sameDef(d, e.def) {
			e.close()
			delete(m.mu.open, name)
		}
	}
	for _, d := range sc.Indexes {
		if !d.Type.Secondary() || m.mu.open[d.Name] != nil {
			continue
		}
		e := newEntry(d, v.TS())
		m.mu.open[d.Name] = e
		k, ok := m.kinds[d.Type]
		if !ok {
			e.fail(errs.NotSupported("%s indexes are not supported", d.Type))
			continue
		}
		ix, err := k.New(d, m.cat)
		if err != nil {
			e.fail(err)
			continue
		}
		e.ix = ix
		e.mem = &Memory{budget: m.budget, name: d.Name}
		if c, ok := ix.(Charged); ok {
			c.SetMemory(e.mem)
		}
		m.running.Add(1)
		go func() {
			defer m.running.Done()
			e.run(v)
		}()
	}
}

func sameDef(a, b *catalog.Index) bool {
	return a.Name == b.Name && a.Slot == b.Slot && a.Type == b.Type
}

// Lookup returns the open index of def (as the reader's schema has it):
// a 42S02 error when none, as when the reader's schema lacks it.
func (m *Manager) Lookup(def *catalog.Index) (*Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e := m.mu.open[def.Name]
	if e == nil || !sameDef(e.def, def) {
		return nil, errs.New(errs.CodeNoObject, errs.CatNoObject,
			"index %s is not built at this snapshot: created by this uncommitted transaction, or dropped or recreated since", def.Name)
	}
	return e, nil
}

// State reports def's state and population percent for db.indexes():
// property indexes are always ONLINE.
func (m *Manager) State(def *catalog.Index) (string, float64) {
	if !def.Type.Secondary() {
		return StateOnline, 100
	}
	m.mu.Lock()
	e := m.mu.open[def.Name]
	m.mu.Unlock()
	if e == nil || !sameDef(e.def, def) {
		return StatePopulating, 0
	}
	return e.State()
}

// Close stops maintaining the indexes, closes them and waits until their
// goroutines have ended.
func (m *Manager) Close() {
	m.store.WatchIndexCommits(nil)
	m.mu.Lock()
	m.mu.closed = true
	for name, e := range m.mu.open {
		e.close()
		delete(m.mu.open, name)
	}
	m.mu.Unlock()
	m.running.Wait()
}

// errNotOnline is a search's error on an index still populating.
func errNotOnline(name string, pct float64) error {
	return errs.New(errs.CodeUnavailable, errs.CatUnavailable,
		"index %s is still populating (%.0f%%): it answers once ONLINE (db.indexes() shows its state)", name, pct)
}

// Await returns once the index has applied every commit up to ts, or
// ctx's error; it fails at once when the index is not ONLINE, or when
// ts is before the version it was built from (a snapshot older than the
// index's build: retry at a newer one).
func (e *Entry) Await(ctx context.Context, ts uint64) error {
	for {
		e.mu.Lock()
		st, err, applied, ch := e.mu.state, e.mu.err, e.mu.applied, e.mu.changed
		e.mu.Unlock()
		switch {
		case st == StateFailed:
			return err
		case st == StatePopulating:
			return errNotOnline(e.def.Name, e.prog.Percent())
		case ts < e.from:
			return errs.New(errs.CodeUnavailable, errs.CatUnavailable,
				"index %s was built at a newer snapshot than this transaction's: retry in a new transaction", e.def.Name)
		case applied >= ts:
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
