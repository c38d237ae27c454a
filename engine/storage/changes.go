package storage

import (
	"sync"

	"github.com/quiverdb/quiver/engine/catalog"
	"sync/atomic"
	"time"
)

// The change feed's side of the commit path. The engine builds change
// events (engine/changes*.go); storage only tells it, in commit order,
// which commits became durable and what they applied to:
//
//	commit lock  if watched: queue {base, version, ops}   (log order)
//	no lock      Log.Sync(lsn); publish
//	             commitDone: mark the entry; hand the durable prefix of
//	             the queue to the sink, oldest first
//
// Unwatched, a commit pays one atomic load. Watched, it pays a queue
// append under the lock and, after its sync, the sink call: the sink only
// queues the record for the engine's dispatcher, which reads the two
// snapshots later without any lock. A commit whose sync fails is dropped
// from the queue unseen; one that aborts before its log append never
// enters it.
//
// Entries enter the queue in log order (under the commit lock) and leave
// it in the same order, so the sink sees commits in LSN order even
// though committers finish their syncs in any order.

// CommitRecord is one durable commit as the change feed sees it. Base and
// Version are immutable versions, so a record may be read at leisure; its
// Ops are read-only, and are the commit's ops without its system record
// ops (system.go).
type CommitRecord struct {
	// LSN is the log position after the commit (0 without a log).
	LSN uint64
	// TS is the commit timestamp: one more than Base's.
	TS uint64
	// At is when the commit was handed to the sink (stamped in commit
	// order, so never decreasing).
	At time.Time
	// Base is the version the commit applied to (the previous commit's),
	// Version the one it made.
	Base, Version *Snapshot
	Ops           []Op
}

// CommitSink receives durable commits in commit order. It runs on a
// committing goroutine while later commits queue behind it: it must hand
// the record over and return (no I/O, no waiting).
type CommitSink func(*CommitRecord)

// commitFeed is the ordered queue between the commit path and the sink.
type commitFeed struct {
	// on is set while a sink is: the commit path's one check.
	on atomic.Bool
	// mu guards the sink and the queue; commits take it after the commit
	// lock, never the other way round.
	mu struct {
		sync.Mutex
		sink CommitSink
		// index is the secondary-index manager's sink (engine/index),
		// independent of the change feed's.
		index CommitSink
		q     []*pendingCommit
	}
}

type pendingCommit struct {
	rec   CommitRecord
	state commitState
}

type commitState uint8

const (
	commitPending commitState = iota
	commitDurable
	commitFailed
)

// WatchCommits makes sink receive every commit that enters the commit
// path from now on, once durable, in commit order; nil stops it (commits
// still queued are dropped). The commits a sink receives are contiguous:
// from the first one on, none is skipped.
func (s *Store) WatchCommits(sink CommitSink) {
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mu.sink = sink
	f.settleLocked()
}

// WatchIndexCommits is WatchCommits for the secondary-index manager
// (engine/index): a second sink, beside the change feed's, that receives
// the same durable commits in the same order.
func (s *Store) WatchIndexCommits(sink CommitSink) {
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mu.index = sink
	f.settleLocked()
}

func (f *commitFeed) settleLocked() {
	on := f.mu.sink != nil || f.mu.index != nil
	if !on {
		clear(f.mu.q)
		f.mu.q = f.mu.q[:0]
	}
	f.on.Store(on)
}

// queueCommitLocked queues a commit that has just been appended to the
// log, when a sink watches; it runs under the commit lock, so the queue is
// in log order. nil when nobody watches.
func (s *Store) queueCommitLocked(base, v *Snapshot, ops []Op) *pendingCommit {
	if !s.feed.on.Load() {
		return nil
	}
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mu.sink == nil && (f.mu.index == nil || !hasSecondary(base.schema) && !hasSecondary(v.schema)) {
		// The index sink only needs commits while a secondary index
		// exists (or one is created or dropped): others skip the queue.
		return nil
	}
	// System records are not the graph's: the feed never sees them, and
	// a commit of only system records yields no change (system.go).
	ops = withoutSystemOps(ops)
	pc := &pendingCommit{rec: CommitRecord{LSN: v.lsn, TS: v.ts, Base: base, Version: v, Ops: ops}}
	f.mu.q = append(f.mu.q, pc)
	return pc
}

// commitDone settles a queued commit: durable (synced and published) or
// failed. The durable prefix of the queue goes to the sink in order; a
// failed entry leaves it unseen.
func (s *Store) commitDone(pc *pendingCommit, durable bool) {
	if pc == nil {
		return
	}
	f := &s.feed
	f.mu.Lock()
	defer f.mu.Unlock()
	pc.state = commitFailed
	if durable {
		pc.state = commitDurable
	}
	q := f.mu.q
	n := 0
	for n < len(q) && q[n].state != commitPending {
		if q[n].state == commitDurable {
			q[n].rec.At = time.Now()
			if f.mu.index != nil {
				f.mu.index(&q[n].rec)
			}
			if f.mu.sink != nil {
				f.mu.sink(&q[n].rec)
			}
		}
		q[n] = nil
		n++
	}
	if n > 0 {
		m := copy(q, q[n:])
		clear(q[m:])
		f.mu.q = q[:m]
	}
}

// hasSecondary reports whether sc has a secondary index (engine/index).
func hasSecondary(sc *catalog.Schema) bool {
	if sc == nil {
		return false
	}
	for _, ix := range sc.Indexes {
		if ix.Type.Secondary() {
			return true
		}
	}
	return false
}
