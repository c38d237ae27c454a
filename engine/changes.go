package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// The change feed: after a commit is durable, every subscriber gets the
// commit's changes, one per node or relationship it created, updated or
// deleted, in commit (LSN) order, and nothing of a transaction that rolled
// back or failed. Explicit transactions, auto-commit statements, batches
// and COPY FROM all commit through one path (storage.Store.commit), which
// hands durable commits to the hub (changes_hub.go); the hub builds the
// events (changes_build.go) once per commit and fans them out to each
// feed's bounded queue. Writers never wait for a feed: one that falls
// behind is dropped and told so (ErrChangeFeedOverflow).

// ChangeOp is what a commit did to an entity.
type ChangeOp uint8

const (
	// ChangeCreated: the entity did not exist before the commit.
	ChangeCreated ChangeOp = iota + 1
	// ChangeUpdated: properties or labels changed.
	ChangeUpdated
	// ChangeDeleted: the entity does not exist after the commit.
	ChangeDeleted
)

func (o ChangeOp) String() string {
	switch o {
	case ChangeCreated:
		return "created"
	case ChangeUpdated:
		return "updated"
	case ChangeDeleted:
		return "deleted"
	}
	return "unknown"
}

// ChangeEntity is the kind of entity a change is about.
type ChangeEntity uint8

const (
	// ChangeNode is a node.
	ChangeNode ChangeEntity = iota + 1
	// ChangeRelationship is a relationship.
	ChangeRelationship
)

func (e ChangeEntity) String() string {
	if e == ChangeRelationship {
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
	Op     ChangeOp
	Entity ChangeEntity
	ID     uint64
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

// BulkChange summarizes a commit that changed more than
// MaxChangesPerCommit entities (a COPY FROM, a large SET): one summary
// instead of millions of events. Counts are of the commit's write
// operations (an entity created and deleted in it counts in both).
type BulkChange struct {
	NodesCreated, NodesUpdated, NodesDeleted                         int64
	RelationshipsCreated, RelationshipsUpdated, RelationshipsDeleted int64
	// Labels are the labels of the nodes the commit wrote; Types the
	// types of the relationships it wrote.
	Labels, Types []string
}

// ChangeBatch is what one commit changed that a feed's patterns select.
type ChangeBatch struct {
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
	// MaxChangesPerCommit.
	Bulk *BulkChange
}

// Limits of the change feed.
const (
	// MaxChangesPerCommit is the most entities a commit's events list;
	// a larger commit is one BulkChange.
	MaxChangesPerCommit = 10000
	// DefaultChangeBuffer is a feed's queue bound (SubscribeOptions.Buffer).
	DefaultChangeBuffer = 16384
	// maxChangeBacklog bounds the durable commits waiting for the hub's
	// dispatcher. Each pins two versions of the graph; past the bound the
	// hub is behind the writers and drops every feed (overflow) rather
	// than make commits wait.
	maxChangeBacklog = 4096
)

// ErrChangeFeedOverflow is Next's error once the feed fell more than its
// buffer behind the commits: it was dropped, and changes after the last
// batch it returned are not delivered. Subscribe again to go on.
var ErrChangeFeedOverflow = errors.New("engine: the change feed fell behind the commits and was dropped")

// ErrChangeFeedClosed is Next's error after Close or once the database
// closed.
var ErrChangeFeedClosed = errors.New("engine: the change feed is closed")

// SubscribeOptions configure a change feed.
type SubscribeOptions struct {
	// Patterns select the changes delivered: those matching any of them
	// (ChangePattern.Matches). None delivers every change.
	Patterns []*ChangePattern
	// Buffer bounds the changes queued for the feed and not yet taken by
	// Next (a bulk summary counts as one); zero means DefaultChangeBuffer.
	Buffer int
	// FromLSN asks for the changes after a log position. Not supported:
	// the log records what a commit wrote, not what it overwrote, so the
	// before-images of old commits are gone. Non-zero is refused (0A000).
	FromLSN uint64
}

// SubscribeChanges opens a change feed: it receives the changes of every
// transaction that commits after SubscribeChanges returns (and perhaps of
// some committing at that moment), once durable, in commit order,
// each commit at most once. Close it when done.
func (db *DB) SubscribeChanges(o SubscribeOptions) (*ChangeFeed, error) {
	if db.closed.Load() {
		return nil, errs.New(errs.CodeUnavailable, errs.CatUnavailable, "the database is closed")
	}
	if o.FromLSN != 0 {
		return nil, errs.NotSupported("resuming a change feed from LSN %d is not supported: the write-ahead log does not keep the before-images of changes; subscribe without a start position and read the current state with a query", o.FromLSN)
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultChangeBuffer
	}
	f := &ChangeFeed{hub: &db.changes, patterns: o.Patterns, limit: o.Buffer, ready: make(chan struct{}, 1)}
	if err := db.changes.add(db, f); err != nil {
		return nil, err
	}
	return f, nil
}

// ChangeFeed is one subscriber of the change feed. Next may be called
// from one goroutine at a time; Close from any.
type ChangeFeed struct {
	hub      *changeHub
	patterns []*ChangePattern
	limit    int
	// ready is signalled when a batch is queued or the feed ends.
	ready chan struct{}
	// mu guards the queue and the end state.
	mu struct {
		sync.Mutex
		q      []ChangeBatch
		queued int // changes in q (a bulk summary counts 1)
		err    error
	}
}

// Next returns the next batch, waiting for one. Once the feed ends it
// returns ErrChangeFeedOverflow (it fell behind) or ErrChangeFeedClosed;
// ctx's error when ctx ends first.
func (f *ChangeFeed) Next(ctx context.Context) (ChangeBatch, error) {
	for {
		f.mu.Lock()
		if len(f.mu.q) > 0 {
			b := f.mu.q[0]
			f.mu.q[0] = ChangeBatch{}
			f.mu.q = f.mu.q[1:]
			f.mu.queued -= batchWeight(&b)
			f.mu.Unlock()
			return b, nil
		}
		err := f.mu.err
		f.mu.Unlock()
		if err != nil {
			return ChangeBatch{}, err
		}
		select {
		case <-f.ready:
		case <-ctx.Done():
			return ChangeBatch{}, ctx.Err()
		}
	}
}

// Close ends the feed; Next then returns ErrChangeFeedClosed.
func (f *ChangeFeed) Close() {
	f.end(ErrChangeFeedClosed)
	f.hub.remove(f)
}

// Queued is the number of changes waiting for Next.
func (f *ChangeFeed) Queued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.mu.queued
}

// push queues b unless the feed ended; false when it overflowed now.
func (f *ChangeFeed) push(b ChangeBatch) bool {
	f.mu.Lock()
	if f.mu.err != nil {
		f.mu.Unlock()
		return true
	}
	// A batch alone is always taken (a commit lists at most
	// MaxChangesPerCommit changes), so a small buffer still sees them.
	w := batchWeight(&b)
	if f.mu.queued > 0 && f.mu.queued+w > f.limit {
		f.mu.Unlock()
		f.end(ErrChangeFeedOverflow)
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
func (f *ChangeFeed) end(err error) {
	f.mu.Lock()
	if f.mu.err == nil {
		f.mu.err = err
		clear(f.mu.q)
		f.mu.q, f.mu.queued = nil, 0
	}
	f.mu.Unlock()
	f.signal()
}

func (f *ChangeFeed) signal() {
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

func batchWeight(b *ChangeBatch) int {
	if b.Bulk != nil {
		return 1
	}
	return len(b.Changes)
}
