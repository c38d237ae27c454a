package index

import (
	"context"
	"fmt"
	"sync"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
)

// Entry is one open secondary index: its definition, the Kind's index,
// its state and the commits queued for it.
type Entry struct {
	def  *catalog.Index
	ix   Index
	from uint64 // the timestamp of the version it was populated from
	prog Progress
	mem  *Memory // what ix holds against the server's budget
	stop context.CancelFunc
	ctx  context.Context
	// mu guards the state, the queue and the applied timestamp.
	mu struct {
		sync.Mutex
		state   string
		err     error
		queue   []*storage.CommitRecord
		applied uint64
		closed  bool
		// changed is closed (and replaced) whenever any of the above
		// changes: Await's wake-up.
		changed chan struct{}
	}
}

func newEntry(def *catalog.Index, from uint64) *Entry {
	e := &Entry{def: def, from: from}
	e.ctx, e.stop = context.WithCancel(context.Background())
	e.mu.state = StatePopulating
	e.mu.changed = make(chan struct{})
	return e
}

// Def is the index's definition.
func (e *Entry) Def() *catalog.Index { return e.def }

// Memory is what the index holds against the server's budget.
func (e *Entry) Memory() *Memory { return e.mem }

// Index is the Kind's index (searched through the kind's own API).
func (e *Entry) Index() Index { return e.ix }

// State is the index's state and population percent.
func (e *Entry) State() (string, float64) {
	e.mu.Lock()
	st := e.mu.state
	e.mu.Unlock()
	if st == StateOnline {
		return st, 100
	}
	return st, e.prog.Percent()
}

func (e *Entry) signalLocked() {
	close(e.mu.changed)
	e.mu.changed = make(chan struct{})
}

func (e *Entry) enqueue(rec *storage.CommitRecord) {
	if rec.TS <= e.from {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mu.closed || e.mu.state == StateFailed {
		return
	}
	e.mu.queue = append(e.mu.queue, rec)
	e.signalLocked()
}

func (e *Entry) fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.mu.state, e.mu.err = StateFailed, fmt.Errorf("index %s failed: %w", e.def.Name, err)
	e.mu.queue = nil
	e.signalLocked()
}

func (e *Entry) close() {
	e.stop()
	e.mu.Lock()
	e.mu.closed = true
	e.signalLocked()
	e.mu.Unlock()
}

// run populates the index from v, then applies the queued commits in
// order until the index is closed.
// PopulateGate, when set, is called before every populate starts and
// holds it until it returns (or ctx ends): tests keep an index
// POPULATING for as long as they check what it answers meanwhile. Set
// it before the database opens, clear it after it closes.
var PopulateGate func(ctx context.Context)

func (e *Entry) run(v *storage.Snapshot) {
	defer e.mem.releaseAll() // after Close: the structures are gone
	defer e.ix.Close()
	if g := PopulateGate; g != nil {
		g(e.ctx)
	}
	if err := e.ix.Populate(e.ctx, v, &e.prog); err != nil {
		if e.ctx.Err() == nil {
			e.fail(err)
		}
		return
	}
	e.mu.Lock()
	e.mu.state, e.mu.applied = StateOnline, v.TS()
	e.signalLocked()
	e.mu.Unlock()
	for {
		e.mu.Lock()
		for len(e.mu.queue) == 0 && !e.mu.closed {
			ch := e.mu.changed
			e.mu.Unlock()
			<-ch
			e.mu.Lock()
		}
		if e.mu.closed {
			e.mu.Unlock()
			return
		}
		recs := e.mu.queue
		e.mu.queue = nil
		e.mu.Unlock()
		if err := e.ix.Apply(recs); err != nil {
			e.fail(err)
			return
		}
		e.mu.Lock()
		e.mu.applied = recs[len(recs)-1].TS
		e.signalLocked()
		e.mu.Unlock()
	}
}
