package changes

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

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
	// redact, when set, hides values events must not carry (SetRedactor).
	redact atomic.Pointer[Redactor]
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
		// lost is the last commit dropped from the backlog unrecorded
		// (the change log shows the gap at its next record).
		lost uint64
	}
	wake chan struct{}
	done chan struct{} // closed by close: the dispatcher returns
	exit chan struct{} // closed by the dispatcher when it returns
	// log, when set, records every commit (log.go); the sink is then on
	// whether or not a feed is open. logged is signalled after each
	// round the dispatcher recorded (Flush waits on it).
	log    *Log
	logged struct {
		sync.Mutex
		ch chan struct{}
	}
}

// NewHub returns the hub of store's commits; closed reports whether the
// database closed.
func NewHub(store *storage.Store, closed func() bool) *Hub {
	return &Hub{store: store, closed: closed}
}

// SetLog makes the hub record every commit in l from now on; call it
// once, after recovery and before the first commit.
func (h *Hub) SetLog(l *Log) {
	h.watch.Lock()
	defer h.watch.Unlock()
	h.mu.Lock()
	h.log = l
	h.startLocked()
	h.mu.Unlock()
	h.syncWatchLocked()
}

// Log is the change log, nil when change capture is off.
func (h *Hub) Log() *Log {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.log
}

// startLocked starts the dispatcher once; h.mu is held.
func (h *Hub) startLocked() {
	if !h.mu.started {
		h.mu.started = true
		h.wake, h.done, h.exit = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		go h.dispatch()
	}
}

// Flush waits until the change log has recorded every commit up to the
// store's latest, or until timeout, and syncs it: a checkpoint or a
// close does not leave commits the log has not seen behind replay's
// reach.
func (h *Hub) Flush(timeout time.Duration) {
	l := h.Log()
	if l == nil {
		return
	}
	h.WaitLogged(context.Background(), h.store.Snapshot().TS(), timeout) //nolint:errcheck // no context to end
	l.Sync()
}

// WaitLogged waits until the change log has recorded the commit at ts
// (the dispatcher records a commit just after it is acknowledged), until
// timeout, or until ctx ends (its error). cdc.* calls wait so that a
// client reads its own acknowledged writes.
func (h *Hub) WaitLogged(ctx context.Context, ts uint64, timeout time.Duration) error {
	l := h.Log()
	if l == nil {
		return nil
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		ch := h.loggedSignal()
		if l.Last() >= ts || l.Err() != nil || h.lostThrough() >= ts || h.isClosed() {
			return nil
		}
		select {
		case <-ch:
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// loggedSignal is closed after the dispatcher's next round.
func (h *Hub) loggedSignal() <-chan struct{} {
	h.logged.Lock()
	defer h.logged.Unlock()
	if h.logged.ch == nil {
		h.logged.ch = make(chan struct{})
	}
	return h.logged.ch
}

func (h *Hub) notifyLogged() {
	h.logged.Lock()
	defer h.logged.Unlock()
	if h.logged.ch != nil {
		close(h.logged.ch)
		h.logged.ch = nil
	}
}

func (h *Hub) lostThrough() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mu.lost
}

func (h *Hub) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.mu.closed
}

// Record builds rec's changes and records them in the change log at
// once: recovery's catch-up (storage.Recovery.WatchFrom), on one
// goroutine before the hub runs.
func (h *Hub) Record(l *Log, rec *storage.CommitRecord) {
	b := builder{redact: h.redactor()}
	all := b.build(h.store.Catalog(), rec)
	l.append(&all)
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
	h.startLocked()
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
	want := (len(h.mu.subs) > 0 || h.log != nil) && !h.mu.closed
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
	case len(h.mu.subs) == 0 && h.log == nil:
	case len(h.mu.backlog) >= maxBacklog:
		// The dispatcher is this far behind the writers: every feed
		// would lose changes, so every feed is told and dropped (the
		// change log sees the gap at its next record, log.go).
		for _, f := range h.mu.subs {
			f.end(ErrOverflow)
		}
		h.mu.subs = nil
		h.mu.lost = rec.TS
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
	var synced time.Time
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
			if h.log != nil {
				if now := time.Now(); now.Sub(synced) >= logSyncInterval {
					h.log.Sync() // a failure stays in the log, which reports it to readers
					synced = now
				}
				h.notifyLogged()
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
	var all Batch
	if h.log != nil {
		// Recorded before the feeds are read: a feed resuming from a
		// position (Subscribe) registers, then reads the log up to its
		// end; every commit after that end reaches it live.
		b.redact = h.redactor()
		all = b.build(h.store.Catalog(), rec)
		h.log.append(&all)
	}
	h.mu.Lock()
	subs, closed := h.mu.subs, h.mu.closed
	h.mu.Unlock()
	if closed && h.log == nil {
		return false
	}
	if len(subs) == 0 {
		return true
	}
	if h.log == nil {
		b.redact = h.redactor()
		all = b.build(h.store.Catalog(), rec)
	}
	var dropped []*Feed
	for _, f := range subs {
		fb, ok := f.filter(rec, &all)
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
	h.Flush(closeFlushTimeout)
	h.stop()
	if h.log != nil {
		h.log.Close()
	}
}

// Abandon stops the hub as a killed process would: what the change log
// has not recorded yet is lost (recovery replays it into the log at the
// next open), nothing is flushed.
func (h *Hub) Abandon() {
	h.stop()
	if h.log != nil {
		h.log.abandon()
	}
}

// stop ends every feed and the dispatcher: what Close and Abandon share.
func (h *Hub) stop() {
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

// logSyncInterval is how often, at most, the dispatcher fsyncs the
// change log; Flush (before every checkpoint) and Close sync it too.
// What a crash takes from the log's unsynced tail the next start
// replays from the write-ahead log, which every acknowledged commit is
// in until a checkpoint, so a sync per commit bought nothing but a
// second fdatasync per commit: on one writer on disk it was a third of
// the process's CPU, as much as the WAL's own (docs/cdc.md, "Cost").
const logSyncInterval = 200 * time.Millisecond

// closeFlushTimeout bounds how long Close waits for the change log to
// record the last commits; past it, the next open replays them from the
// write-ahead log if no checkpoint passed them.
const closeFlushTimeout = 10 * time.Second

// SetRedactor installs the redactor every event's properties pass
// through (nil: none).
func (h *Hub) SetRedactor(r Redactor) {
	if r == nil {
		h.redact.Store(nil)
		return
	}
	h.redact.Store(&r)
}

func (h *Hub) redactor() Redactor {
	if r := h.redact.Load(); r != nil {
		return *r
	}
	return nil
}
