// Package changes owns the change feed: after a commit is durable, every
// subscriber (a Feed) gets the commit's changes, built once per commit
// from its two versions (build.go) and selected by the feed's patterns
// (pattern.go, match.go). With change capture on, the hub also records
// every commit's changes in a change log (log.go, codec.go, read.go)
// kept for a retention, which cdc.changes reads and feeds resume from
// (positions, position.go). The engine opens one Hub per database and
// exposes it as DB.SubscribeChanges; frontend/stream serves it.
package changes

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// The change feed: after a commit is durable, every subscriber gets the
// commit's changes, one per node or relationship it created, updated or
// deleted, in commit (LSN) order, and nothing of a transaction that rolled
// back or failed. Explicit transactions, auto-commit statements, batches
// and COPY FROM all commit through one path (storage.Store.commit), which
// hands durable commits to the hub (hub.go); the hub builds the
// events (build.go) once per commit and fans them out to each
// feed's bounded queue. Writers never wait for a feed: one that falls
// behind is dropped and told so (ErrOverflow).

// Op is what a commit did to an entity.
type Op uint8

const (
	// Created: the entity did not exist before the commit.
	Created Op = iota + 1
	// Updated: properties or labels changed.
	Updated
	// Deleted: the entity does not exist after the commit.
	Deleted
)

func (o Op) String() string {
	switch o {
	case Created:
		return "created"
	case Updated:
		return "updated"
	case Deleted:
		return "deleted"
	}
	return "unknown"
}

// Entity is the kind of entity a change is about.
type Entity uint8

const (
	// Node is a node.
	Node Entity = iota + 1
	// Relationship is a relationship.
	Relationship
)

func (e Entity) String() string {
	if e == Relationship {
		return "relationship"
	}
	return "node"
}

// Property is one property of an entity.
type Property struct {
	Key   string
	Value vector.Value
}

// Change is one entity a commit changed. Slices and values are shared by
// every feed that receives the change: read-only.
type Change struct {
	Op     Op
	Entity Entity
	ID     uint64
	// Ordinal is the change's place among its commit's changes (before
	// any pattern selects some): with the commit's TS, its Position.
	Ordinal uint32
	// Labels are a node's labels after the commit (before it, for a
	// deleted node), in catalog order; LabelsAdded and LabelsRemoved are
	// what an update changed.
	Labels, LabelsAdded, LabelsRemoved []string
	// Type, Start and End describe a relationship; StartLabels and
	// EndLabels are its endpoints' labels (after the commit, or before it
	// for an endpoint the commit deleted), for patterns to match.
	Type                   string
	Start, End             uint64
	StartLabels, EndLabels []string
	// Before is the entity's properties as of the commit's base version
	// (nil for a created entity), After as of the commit (nil for a
	// deleted one); both in key order.
	Before, After []Property
}

// Bulk summarizes a commit that changed more than
// MaxPerCommit entities (a COPY FROM, a large SET): one summary
// instead of millions of events. Counts are of the commit's write
// operations (an entity created and deleted in it counts in both).
type Bulk struct {
	NodesCreated, NodesUpdated, NodesDeleted                         int64
	RelationshipsCreated, RelationshipsUpdated, RelationshipsDeleted int64
	// Labels are the labels of the nodes the commit wrote; Types the
	// types of the relationships it wrote.
	Labels, Types []string
}

// Batch is what one commit changed that a feed's patterns select.
type Batch struct {
	// LSN is the commit's log position (0 for a database without a data
	// directory); TS its commit timestamp (one more per commit, so the
	// order of commits even without a log).
	LSN, TS uint64
	// CommittedAt is when the commit became durable.
	CommittedAt time.Time
	// Changes are the changed entities in the order the commit first
	// wrote them; empty when Bulk is set.
	Changes []Change
	// Bulk is set, instead of Changes, for a commit beyond
	// MaxPerCommit.
	Bulk *Bulk
}

// Limits of the change feed.
const (
	// MaxPerCommit is the most entities a commit's events list;
	// a larger commit is one Bulk.
	MaxPerCommit = 10000
	// DefaultBuffer is a feed's queue bound (Options.Buffer).
	DefaultBuffer = 16384
	// maxBacklog bounds the durable commits waiting for the hub's
	// dispatcher. Each pins two versions of the graph; past the bound the
	// hub is behind the writers and drops every feed (overflow) rather
	// than make commits wait.
	maxBacklog = 4096
)

// ErrOverflow is Next's error once the feed fell more than its
// buffer behind the commits: it was dropped, and changes after the last
// batch it returned are not delivered. Subscribe again to go on.
var ErrOverflow = errors.New("engine: the change feed fell behind the commits and was dropped")

// ErrClosed is Next's error after Close or once the database
// closed.
var ErrClosed = errors.New("engine: the change feed is closed")

// Options configure a change feed.
type Options struct {
	// Patterns select the changes delivered: those matching any of them
	// (Pattern.Matches). None delivers every change.
	Patterns []*Pattern
	// Buffer bounds the changes queued for the feed and not yet taken by
	// Next (a bulk summary counts as one); zero means DefaultBuffer.
	Buffer int
	// FromLSN asks for the changes after a log position. Not supported:
	// the log records what a commit wrote, not what it overwrote, so the
	// before-images of old commits are gone. Non-zero is refused (0A000);
	// From resumes instead.
	FromLSN uint64
	// From, when set, resumes after a position (cdc.changes'): the feed
	// first delivers the change log's commits after it, then the live
	// ones, with no gap and no commit twice. It needs change capture on
	// (Hub.SetLog); a position the log no longer holds is refused
	// (Log.Check).
	From *Position
	// Restrict, when set, keeps of each batch what the subscriber may see
	// (row-level security): it gets the commit's record while the hub
	// delivers it live, nil for a batch read back from the change log.
	// It must not modify the batch's changes, which other feeds share.
	Restrict Restrictor
}

// Restrictor keeps of batch b what a subscriber may see; false when
// nothing is left.
type Restrictor func(rec *storage.CommitRecord, b Batch) (Batch, bool)

// Subscribe opens a change feed: it receives the changes of every
// transaction that commits after Subscribe returns (and perhaps of some
// committing at that moment), once durable, in commit order, each commit
// at most once. Close it when done.
func (h *Hub) Subscribe(o Options) (*Feed, error) {
	if o.FromLSN != 0 {
		return nil, errs.NotSupported("resuming a change feed from LSN %d is not supported: the write-ahead log does not keep the before-images of changes; subscribe without a start position and read the current state with a query", o.FromLSN)
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	f := &Feed{hub: h, patterns: o.Patterns, restrict: o.Restrict, limit: o.Buffer, ready: make(chan struct{}, 1)}
	var log *Log
	if o.From != nil {
		if log = h.Log(); log == nil {
			return nil, errs.NotSupported("resuming a change feed needs change capture: start the server with --cdc-retention (docs/cdc.md)")
		}
		if err := log.Check(*o.From); err != nil {
			return nil, err
		}
	}
	if err := h.add(f); err != nil {
		return nil, err
	}
	if log != nil {
		// Registered first, then the log's end read: every commit after
		// that end reaches the feed live (the hub records a commit
		// before it reads its feeds), every one up to it is history.
		f.hist = &history{log: log, at: *o.From, upTo: log.Last()}
	}
	return f, nil
}

// history is a resuming feed's read of the change log, a page at a time,
// before it turns to its live queue.
type history struct {
	log  *Log
	at   Position // the last position delivered
	upTo uint64   // the log's end when the feed registered
	page []Batch
}

// A resuming feed reads the log's history a page at a time: at most
// historyPage commits, historyPageBytes of their records, and as many
// changes as its buffer holds of live ones (Options.Buffer), whichever
// comes first (a page holds at least one commit). A resume thus holds
// no more than a live feed may queue, however long the history.
const (
	historyPage      = 256
	historyPageBytes = 4 << 20
)

// nextHistory is the next batch of history; ok is false once history is
// done.
func (f *Feed) nextHistory() (Batch, bool, error) {
	h := f.hist
	for len(h.page) == 0 {
		if !h.at.Less(EndOf(h.upTo)) {
			return Batch{}, false, nil
		}
		bytes, weight := 0, 0
		err := h.log.EachSized(h.at, h.upTo, func(b *Batch, n int) (bool, error) {
			h.at = EndOf(b.TS)
			if fb, ok := f.filter(nil, b); ok {
				h.page = append(h.page, fb)
				bytes, weight = bytes+n, weight+batchWeight(&fb)
			}
			return len(h.page) < historyPage && bytes < historyPageBytes && weight < f.limit, nil
		})
		if err != nil {
			return Batch{}, false, err
		}
		if len(h.page) == 0 {
			h.at = EndOf(h.upTo) // nothing selected up to the end
		}
	}
	b := h.page[0]
	h.page[0] = Batch{}
	h.page = h.page[1:]
	return b, true, nil
}

// Feed is one subscriber of the change feed. Next may be called
// from one goroutine at a time; Close from any.
type Feed struct {
	hub      *Hub
	patterns []*Pattern
	restrict Restrictor // nil: the subscriber sees every change
	limit    int
	// hist is the history a resuming feed has still to deliver (Next's
	// goroutine only).
	hist *history
	// ready is signalled when a batch is queued or the feed ends.
	ready chan struct{}
	// mu guards the queue and the end state.
	mu struct {
		sync.Mutex
		q      []Batch
		queued int // changes in q (a bulk summary counts 1)
		err    error
	}
}

// Next returns the next batch, waiting for one. Once the feed ends it
// returns ErrOverflow (it fell behind) or ErrClosed;
// ctx's error when ctx ends first.
func (f *Feed) Next(ctx context.Context) (Batch, error) {
	if f.hist != nil {
		f.mu.Lock()
		err := f.mu.err
		f.mu.Unlock()
		if err != nil {
			return Batch{}, err
		}
		if err := ctx.Err(); err != nil {
			return Batch{}, err
		}
		b, ok, err := f.nextHistory()
		if err != nil {
			f.end(err)
			return Batch{}, err
		}
		if ok {
			return b, nil
		}
		upTo := f.hist.upTo
		f.hist = nil
		f.dropThrough(upTo)
	}
	for {
		f.mu.Lock()
		if len(f.mu.q) > 0 {
			b := f.mu.q[0]
			f.mu.q[0] = Batch{}
			f.mu.q = f.mu.q[1:]
			f.mu.queued -= batchWeight(&b)
			f.mu.Unlock()
			return b, nil
		}
		err := f.mu.err
		f.mu.Unlock()
		if err != nil {
			return Batch{}, err
		}
		select {
		case <-f.ready:
		case <-ctx.Done():
			return Batch{}, ctx.Err()
		}
	}
}

// dropThrough drops the queued live batches of commits up to ts: the
// history delivered them.
func (f *Feed) dropThrough(ts uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for n < len(f.mu.q) && f.mu.q[n].TS <= ts {
		f.mu.queued -= batchWeight(&f.mu.q[n])
		n++
	}
	clear(f.mu.q[:n])
	f.mu.q = f.mu.q[n:]
}

// Close ends the feed; Next then returns ErrClosed.
func (f *Feed) Close() {
	f.end(ErrClosed)
	f.hub.remove(f)
}

// Queued is the number of changes waiting for Next.
func (f *Feed) Queued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mu.queued
}

// push queues b unless the feed ended; false when it overflowed now.
func (f *Feed) push(b Batch) bool {
	f.mu.Lock()
	if f.mu.err != nil {
		f.mu.Unlock()
		return true
	}
	// A batch alone is always taken (a commit lists at most
	// MaxPerCommit changes), so a small buffer still sees them.
	w := batchWeight(&b)
	if f.mu.queued > 0 && f.mu.queued+w > f.limit {
		f.mu.Unlock()
		f.end(ErrOverflow)
		return false
	}
	f.mu.q = append(f.mu.q, b)
	f.mu.queued += w
	f.mu.Unlock()
	f.signal()
	return true
}

// end sets the feed's final error (the first one wins) and drops what it
// queued: an overflowed feed must not keep its backlog alive.
func (f *Feed) end(err error) {
	f.mu.Lock()
	if f.mu.err == nil {
		f.mu.err = err
		clear(f.mu.q)
		f.mu.q, f.mu.queued = nil, 0
	}
	f.mu.Unlock()
	f.signal()
}

func (f *Feed) signal() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

func batchWeight(b *Batch) int {
	if b.Bulk != nil {
		return 1
	}
	return len(b.Changes)
}

// filter is what of b the feed's patterns select and its restrictor
// keeps (rec: the commit's record when delivered live, nil from the log).
func (f *Feed) filter(rec *storage.CommitRecord, b *Batch) (Batch, bool) {
	fb, ok := b.Filter(f.patterns)
	if !ok || f.restrict == nil {
		return fb, ok
	}
	return f.restrict(rec, fb)
}
