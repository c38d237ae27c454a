package changes

import (
	"sync"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// Hub connects the store's commit sink to the feeds.
//
//	commit path ──sink──▶ backlog ──dispatcher──▶ build once ──▶ feed queues
//	(in LSN order)        (≤ maxBacklog)    (no lock)      (bounded, never waited on)
//
// The store calls the sink only while at least one feed is open, so an
// unwatched database pays one atomic load per commit. The sink only
// appends the record; one dispatcher goroutine builds the commit's
// changes from its two versions and hands each feed the changes its
// patterns select. A feed whose queue is full is dropped with
// ErrOverflow; a backlog the dispatcher cannot keep up with
// drops every feed. Nothing on this path makes a writer wait.
type Hub struct {
	store *storage.Store
	// closed reports whether the database closed (it refuses new feeds
	// from then on, before Close ran).
	closed func() bool
	// watch serializes switching the store's sink on and off. It is held
	// while calling WatchCommits (which takes the store's feed lock, the
	// lock the sink runs under), so it is never taken under mu.
	watch sync.Mutex
	// mu guards the fields below; the sink takes it under the store's
	// feed lock.
	mu struct {
		sync.Mutex
		// subs is copy-on-write: the dispatcher iterates a snapshot.
		subs     []*Feed
		backlog  []*storage.CommitRecord
		watching bool
		started  bool
		closed   bool
	}
	wake chan struct{}
	done chan struct{} // closed by close: the dispatcher returns
	exit chan struct{} // closed by the dispatcher when it returns
}

// NewHub returns the hub of store's commits; closed reports whether the
// database closed.
func NewHub(store *storage.Store, closed func() bool) *Hub {
	return &Hub{store: store, closed: closed}
}

// add registers f, starting the dispatcher and the store's sink as
// needed.
func (h *Hub) add(f *Feed) error {
	h.watch.Lock()
	defer h.watch.Unlock()
	h.mu.Lock()
	if h.mu.closed || h.closed() {
		h.mu.Unlock()
		return errs.New(errs.CodeUnavailable, errs.CatUnavailable, "the database is closed")
	}
	if !h.mu.started {
		h.mu.started = true
		h.wake, h.done, h.exit = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		go h.dispatch()
	}
	h.mu.subs = append(h.mu.subs[:len(h.mu.subs):len(h.mu.subs)], f)
	h.mu.Unlock()
	h.syncWatchLocked()
	return nil
}

// remove unregisters f (if still registered).
func (h *Hub) remove(f *Feed) {
	h.watch.Lock()
	defer h.watch.Unlock()
	h.mu.Lock()
	h.mu.subs = without(h.mu.subs, func(g *Feed) bool { return g == f })
	h.mu.Unlock()
	h.syncWatchLocked()
}

// without returns subs minus those drop selects, as a new slice (subs is
// shared with the dispatcher).
func without(subs []*Feed, drop func(*Feed) bool) []*Feed {
	var out []*Feed
	for _, s := range subs {
		if !drop(s) {
			out = append(out, s)
		}
	}
	return out
}

// syncWatchLocked turns the store's sink on while feeds are open and off
// when none is; h.watch is held.
func (h *Hub) syncWatchLocked() {
	h.mu.Lock()
	want := len(h.mu.subs) > 0 && !h.mu.closed
	if want == h.mu.watching {
		h.mu.Unlock()
		return
	}
	h.mu.watching = want
	if !want {
		clear(h.mu.backlog)
		h.mu.backlog = nil
	}
	h.mu.Unlock()
	if want {
		h.store.WatchCommits(h.sink)
	} else {
		h.store.WatchCommits(nil)
	}
}

// sink is the store's CommitSink: it queues the record for the
// dispatcher, in commit order, and returns.
func (h *Hub) sink(rec *storage.CommitRecord) {
	h.mu.Lock()
	switch {
	case len(h.mu.subs) == 0:
	case len(h.mu.backlog) >= maxBacklog:
		// The dispatcher is this far behind the writers: every feed
		// would lose changes, so every feed is told and dropped.
		for _, f := range h.mu.subs {
			f.end(ErrOverflow)
		}
		h.mu.subs = nil
		clear(h.mu.backlog)
		h.mu.backlog = nil
	default:
		h.mu.backlog = append(h.mu.backlog, rec)
	}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// dispatch builds and fans out the backlog until the hub closes.
func (h *Hub) dispatch() {
	defer close(h.exit)
	var b builder
	for {
		select {
		case <-h.wake:
		case <-h.done:
			return
		}
		for {
			h.mu.Lock()
			recs := h.mu.backlog
			h.mu.backlog = nil
			h.mu.Unlock()
			if len(recs) == 0 {
				break
			}
			for i, rec := range recs {
				recs[i] = nil // release the versions as soon as done
				if !h.deliver(&b, rec) {
					return
				}
			}
		}
		h.mu.Lock()
		stale := h.mu.watching && len(h.mu.subs) == 0
		h.mu.Unlock()
		if stale { // every feed was dropped or closed
			h.watch.Lock()
			h.syncWatchLocked()
			h.watch.Unlock()
		}
	}
}

// deliver builds one commit's changes and queues them for every feed
// whose patterns select some; false once the hub closed.
func (h *Hub) deliver(b *builder, rec *storage.CommitRecord) bool {
	h.mu.Lock()
	subs, closed := h.mu.subs, h.mu.closed
	h.mu.Unlock()
	if closed {
		return false
	}
	if len(subs) == 0 {
		return true
	}
	all := b.build(h.store.Catalog(), rec)
	var dropped []*Feed
	for _, f := range subs {
		fb, ok := all.filter(f.patterns)
		if ok && !f.push(fb) {
			dropped = append(dropped, f)
		}
	}
	if len(dropped) > 0 {
		h.mu.Lock()
		h.mu.subs = without(h.mu.subs, func(g *Feed) bool {
			for _, d := range dropped {
				if g == d {
					return true
				}
			}
			return false
		})
		h.mu.Unlock()
	}
	return true
}

// Close ends every feed and stops the dispatcher (engine's DB.Close).
func (h *Hub) Close() {
	h.watch.Lock()
	h.mu.Lock()
	h.mu.closed = true
	subs := h.mu.subs
	h.mu.subs = nil
	started := h.mu.started
	h.mu.Unlock()
	for _, f := range subs {
		f.end(ErrClosed)
	}
	h.syncWatchLocked()
	h.watch.Unlock()
	if started {
		close(h.done)
		<-h.exit
	}
}
