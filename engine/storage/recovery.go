package storage

import (
	"fmt"
	"time"
)

// Recovery replays the WAL's commit records onto a store at open.
//
// Records are applied in runs: one working version takes a run of
// records, validating and applying each, and is sealed and published
// once at the end of the run, at the last record's ts and lsn. Nobody
// reads the versions in between during recovery, and building one per
// record would clone every live and label bitmap and every column chunk
// a record touches, record after record (most of a replay's time before
// runs). A run ends after recoveryRunRecords records or recoveryRunBytes
// of records, which bounds what an unsealed working version holds.
type Recovery struct {
	s   *Store
	w   *work // the open run; nil between runs
	ts  uint64
	lsn uint64
	// writer is the writer of the last record applied (writer.go).
	writer uint64
	n      int // records in the open run
	bytes  int
	// watch, when set, receives every record after watchFrom as a
	// commit of its own (WatchFrom).
	watch     CommitSink
	watchFrom uint64
}

// WatchFrom makes sink receive each replayed commit whose timestamp is
// above ts, with the version before it and the one it made, as the
// commit path's sink would have: the change log (engine/changes) catches
// up on commits a crash kept it from recording. Those records are
// replayed one version each, so only the short tail after ts costs more.
func (r *Recovery) WatchFrom(ts uint64, sink CommitSink) {
	r.watch, r.watchFrom = sink, ts
}

// Run bounds; variables so that tests can make runs tiny.
var (
	recoveryRunRecords = 4096
	recoveryRunBytes   = 64 << 20
)

// Recover starts replaying records onto s. Call it before SetLog, and
// use the Recovery from one goroutine.
func (s *Store) Recover() *Recovery {
	return &Recovery{s: s, ts: s.head.ts, lsn: s.head.lsn, writer: s.head.writer}
}

// Apply replays one commit record that ends at log position lsn: the
// names it carries are registered, then its ops are validated and applied
// to the open run. An error means the log does not fit the store (the
// records after the checkpoint are not the ones it was written with); the
// store then holds only the runs finished before, and recovery must stop.
func (r *Recovery) Apply(rec []byte, lsn uint64) error {
	d, err := decodeRecord(rec)
	if err != nil {
		return err
	}
	return r.applyDecoded(d, len(rec), lsn)
}

// applyDecoded is Apply of a record decoded already (a follower's
// ApplyReplicated decodes it first to tell its own from another's), of
// size bytes.
func (r *Recovery) applyDecoded(d *decodedRecord, size int, lsn uint64) error {
	if err := r.checkWriter(d, lsn); err != nil {
		return err
	}
	if d.ts != r.ts+1 {
		return fmt.Errorf("commit record has ts %d, but the version before it has ts %d", d.ts, r.ts)
	}
	if err := registerNames(r.s.cat, d.names); err != nil {
		return err
	}
	watched := r.watch != nil && d.ts > r.watchFrom
	if watched {
		r.finishRun()
	}
	base := r.s.head
	if r.w == nil {
		r.w = r.s.newWork(r.s.head)
		r.w.recovering = true
	}
	w := r.w
	w.mu.Lock()
	w.v.ts, w.v.writer = d.ts, d.writer
	for i := range d.ops {
		if err := w.replayLocked(&d.ops[i]); err != nil {
			w.mu.Unlock()
			r.w = nil
			return fmt.Errorf("commit record (ts %d) does not apply: %w", d.ts, err)
		}
	}
	w.mu.Unlock()
	r.ts, r.lsn = d.ts, lsn
	r.n++
	r.bytes += size
	if watched {
		r.finishRun()
		r.watch(&CommitRecord{LSN: lsn, TS: d.ts, At: time.Now(), Base: base, Version: r.s.head, Ops: withoutSystemOps(d.ops)})
		return nil
	}
	if r.n >= recoveryRunRecords || r.bytes >= recoveryRunBytes {
		r.finishRun()
	}
	return nil
}

// Finish publishes the open run. The store's latest version is then the
// last record's, stamped with its lsn. A UNIQUE constraint the log left
// without its index (an older version let DROP INDEX take it) gets one
// first.
func (r *Recovery) Finish() error {
	if sc := r.s.head.Schema(); r.w == nil && hasConstraintWithoutIndex(sc) {
		r.w = r.s.newWork(r.s.head)
	}
	if w := r.w; w != nil {
		w.mu.Lock()
		err := w.adoptIndexesLocked()
		w.mu.Unlock()
		if err != nil {
			r.w = nil
			return err
		}
	}
	r.finishRun()
	return nil
}

func (r *Recovery) finishRun() {
	w := r.w
	if w == nil {
		return
	}
	r.w, r.n, r.bytes = nil, 0, 0
	w.mu.Lock()
	w.flushIndexesLocked()
	w.flushAllLocked()
	w.sealLocked()
	w.mu.Unlock()
	v := w.v
	v.lsn = r.lsn
	s := r.s
	s.install(&v)
	s.nextNode.Store(max(s.nextNode.Load(), v.nodeBound))
	s.nextRel.Store(max(s.nextRel.Load(), v.relBound))
}
