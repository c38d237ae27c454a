package storage

import (
	"errors"
	"fmt"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// The commit path.
//
//	commit lock ┌ validate (optimistic: history, conflict.go)
//	            │ rebase onto the latest version when others committed
//	            │ check constraints, seal chunks
//	            │ encode the record, Log.Append (log order = ts order)
//	            └ head = the new version; history entry
//	no lock       Log.Sync(lsn)   group commit: one fsync for many
//	              publish: readers see the version (cur), Commit returns
//
// Two pointers name the latest versions: head (under the commit lock) is
// the latest committed one, the base of the next commit, durable or not;
// cur (atomic, what Snapshot and readers load) is the latest durable one.
// A version is published only after the log is synced past it, so no
// reader ever sees a commit a crash could take back; the next commit
// need not wait for that, so committers share fsyncs.
//
// If the log fails (a write or an fsync error) the store stops taking
// commits for good: the state of the file after a failed fsync is
// unknown, and retrying could acknowledge a commit that is not on disk.
// Readers go on reading the last durable version; restarting recovers
// from the log.

// Log is where commits are made durable (engine/storage/wal implements
// it). Append is called under the commit lock, in commit order.
type Log interface {
	// Append writes a record and returns the log position after it.
	Append(rec []byte) (lsn uint64, err error)
	// Sync returns once everything up to lsn is durable.
	Sync(lsn uint64) error
}

// SetLog makes commits durable through l. Call it after recovery and
// before the first commit; without a log, commits live in memory only.
func (s *Store) SetLog(l Log) {
	s.writer.Lock()
	defer s.writer.Unlock()
	s.log = l
	s.logged.labels, s.logged.types, s.logged.keys = s.cat.NumLabels(), s.cat.NumTypes(), s.cat.NumKeys()
}

// LSN is the log position of the latest durable version: what a
// checkpoint of Snapshot() replays the log from.
func (s *Store) LSN() uint64 { return s.cur.Load().lsn }

// LSN is the log position just after the commit that made this version.
func (v *Snapshot) LSN() uint64 { return v.lsn }

// install makes v the latest version, durable and committed: at open,
// bulk load and replay.
func (s *Store) install(v *Snapshot) {
	s.cur.Store(v)
	s.head = v
	s.hist.reset(v.ts)
}

// failure is the error every commit gets once the log failed.
func (s *Store) failure() error {
	if e := s.failed.Load(); e != nil {
		return *e
	}
	return nil
}

// fail stops the commit path for good with err's engine error: 53100
// for a full disk, 08006 for any other failure of the log and for
// another writer found in the directory.
func (s *Store) fail(err error) error {
	var e *errs.Error
	var other *OtherWriterError
	switch {
	case errors.As(err, &other):
		e = errs.Wrap(errs.CodeUnavailable, errs.CatUnavailable, err,
			"the server takes no more commits until it is restarted alone on its data directory")
	case vfs.IsDiskFull(err):
		e = errs.DiskFull(err, "the disk holding the data directory is full (no space left on device): "+
			"the write-ahead log cannot take this commit, and the server takes no more commits until it is restarted with space freed "+
			"(the outcome of this commit is decided by recovery)")
	default:
		e = errs.Wrap(errs.CodeUnavailable, errs.CatUnavailable, err,
			"the write-ahead log failed: the server takes no more commits until it is restarted (the outcome of the last commit is decided by recovery)")
	}
	var ee error = e
	s.failed.CompareAndSwap(nil, &ee)
	return s.failure()
}

// commit runs the commit path for tx (marked done by Commit).
func (s *Store) commit(tx *Tx) (uint64, error) {
	w := tx.w
	if w == nil {
		return tx.snap.ts, nil
	}
	if !tx.locked {
		s.writer.Lock()
		tx.locked = true
	}
	unlock := func() {
		if tx.locked {
			tx.locked = false
			s.writer.Unlock()
		}
	}
	defer unlock()
	abort := func(err error) (uint64, error) {
		tx.snap, tx.w = w.base, nil
		return 0, err
	}
	if err := s.failure(); err != nil {
		return abort(err)
	}
	if len(w.ops) == 0 {
		// Nothing to publish. A pessimistic Tx read the latest version,
		// which may not be durable yet: it answers only once it is.
		lsn := w.base.lsn
		tx.snap, tx.w = w.base, nil
		unlock()
		return tx.snap.ts, s.syncTo(lsn)
	}
	if head := s.head; w.base != head {
		var reads *footprint
		if tx.reads != nil {
			reads = tx.reads.footprint()
		}
		if err := s.hist.validate(w.ops, w.base, head.ts, reads); err != nil {
			return abort(err)
		}
		nw, err := s.rebase(w, head)
		if err != nil {
			return abort(err)
		}
		nw.system = w.system
		w = nw
		tx.w, tx.snap = w, &w.v
	}
	w.mu.Lock()
	// Constraints are checked before anything is published: a violating
	// transaction changes nothing.
	w.flushIndexesLocked()
	if err := w.checkConstraintsLocked(); err != nil {
		w.mu.Unlock()
		return abort(err)
	}
	w.flushAllLocked()
	w.sealLocked()
	w.mu.Unlock()
	v := w.v // the published version is a fresh value: tx.snap keeps the private one
	if s.log != nil {
		names := tailSince(s.cat, s.logged.labels, s.logged.types, s.logged.keys)
		v.writer = s.session.id
		s.rec = encodeRecordBy(s.rec[:0], s.session, v.ts, names, w.ops)
		lsn, err := s.log.Append(s.rec)
		if cap(s.rec) > 1<<20 {
			s.rec = nil // a bulk commit's buffer is not kept
		}
		if err != nil {
			if e := ReplicationError(err); e != nil {
				return abort(e) // nothing was proposed: the store goes on
			}
			return abort(s.fail(fmt.Errorf("cannot append to the write-ahead log: %w", err)))
		}
		s.logged.labels = names.firstLabel + len(names.labels)
		s.logged.types = names.firstType + len(names.types)
		s.logged.keys = names.firstKey + len(names.keys)
		s.session.logged = true
		v.lsn = lsn
	}
	s.head = &v
	ws, fp := writeEffects(w.ops, w.base)
	s.hist.add(histEntry{ts: v.ts, ws: ws, fp: fp})
	s.pruneHistory()
	watched := s.queueCommitLocked(w.base, &v, w.ops) // nil unless a change feed watches (engine/changes)
	if s.proposedLocked(&v, watched) {
		watched = nil // the replicated log settles it (replicated.go)
	}
	unlock()
	if err := s.syncTo(v.lsn); err != nil {
		s.commitDone(watched, false)
		return 0, err
	}
	s.publish(&v)
	s.commitDone(watched, true)
	if w.system {
		s.systemChanged(w.ops)
	}
	s.maybeCompact(&v)
	return v.ts, nil
}

// syncTo waits until the log is durable up to lsn.
func (s *Store) syncTo(lsn uint64) error {
	if s.log == nil {
		return nil
	}
	if err := s.log.Sync(lsn); err != nil {
		if e := ReplicationError(err); e != nil {
			return e // not published; the replicated log decides (replicated.go)
		}
		return s.fail(fmt.Errorf("cannot sync the write-ahead log: %w", err))
	}
	return nil
}

// publish makes v what readers see, unless a newer version already is
// (committers finish their syncs in any order; a newer version holds
// everything an older one does).
func (s *Store) publish(v *Snapshot) {
	for {
		c := s.cur.Load()
		if c.ts >= v.ts || s.cur.CompareAndSwap(c, v) {
			return
		}
	}
}

// BeginOptimistic starts an optimistic transaction (see Tx) reading the
// latest durable version. serializable makes it record its reads and
// fail at commit when a concurrent commit wrote any of them.
func (s *Store) BeginOptimistic(serializable bool) *Tx {
	tx := &Tx{s: s, optimistic: true}
	if serializable {
		tx.reads = &readTracker{}
	}
	s.txs.mu.Lock()
	tx.snap = s.cur.Load()
	if s.txs.open == nil {
		s.txs.open = map[*Tx]uint64{}
	}
	s.txs.open[tx] = tx.snap.ts
	s.txs.mu.Unlock()
	return tx
}

// txEnded forgets a finished optimistic transaction.
func (s *Store) txEnded(tx *Tx) {
	if !tx.optimistic {
		return
	}
	s.txs.mu.Lock()
	delete(s.txs.open, tx)
	s.txs.mu.Unlock()
}

// pruneHistory drops the entries no open optimistic transaction needs:
// those at or below the oldest snapshot one reads, and below the latest
// durable version (where any new one starts).
func (s *Store) pruneHistory() {
	s.txs.mu.Lock()
	oldest := s.cur.Load().ts
	for _, ts := range s.txs.open {
		oldest = min(oldest, ts)
	}
	s.txs.mu.Unlock()
	s.hist.prune(oldest)
}
