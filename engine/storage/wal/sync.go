package wal

import (
	"fmt"
	"runtime"
)

// Group commit. One goroutine per open Log, the flusher, does the writes
// and fdatasyncs that Sync asks for while other committers wait; Sync
// registers what it needs and waits. A committer that finds nobody
// syncing syncs its own round itself (a lone committer pays no hand-off
// between goroutines) and passes the rounds registered meanwhile to the
// flusher.
//
//	committer  Append (buffer) ─ Sync(end): join a round ─────── wait ─ return
//	flusher              take the round: pwrite everything appended, fdatasync ─ wake it
//	                                                take the next round: …
//
// A round covers everything appended when the flusher takes its bytes.
// A Sync whose LSN the round being synced covers waits for that round;
// any other waits for the next one, which the flusher starts as soon as
// the current one is durable. The flusher wakes a round's committers by
// closing its channel and goes straight on to the next round's write and
// fdatasync: the committers' work after their acknowledgement (their
// answers, their next statements) runs on the CPU while the disk syncs
// the next batch, and the next sync never waits for a woken committer to
// be scheduled. (When a committer led the sync, the next leader was one
// of the woken committers, often the last to run: the disk idled while
// every other one answered.)
//
// A failed write or fdatasync fails the log for good (ErrFailed): the
// round's committers, and every later Append and Sync, get it.

// syncRound is one write and fdatasync of the flusher, and the
// committers waiting for it.
type syncRound struct {
	end  LSN           // what it covers, once the flusher took its bytes
	done chan struct{} // closed once it is durable, or the log failed
}

// Sync returns once the log is durable up to upto (an LSN Append
// returned), by the round that covers it.
func (l *Log) Sync(upto LSN) error {
	if err := l.failed(); err != nil {
		return err
	}
	if upto <= l.Durable() {
		return nil
	}
	s := &l.syncer
	s.Lock()
	if s.closed {
		s.Unlock()
		return l.afterClose(upto)
	}
	r := s.running
	if r == nil || upto > r.end {
		if s.next == nil {
			s.next = &syncRound{done: make(chan struct{})}
		}
		r = s.next
		if !s.busy {
			// Nobody is syncing: this committer syncs its own round, with
			// no hand-off to the flusher (a lone committer's latency).
			s.busy = true
			s.next = nil
			s.Unlock()
			l.lead(r)
			return l.synced(upto)
		}
	}
	s.Unlock()
	<-r.done
	return l.synced(upto)
}

// synced is Sync's answer once the round it waited for is done.
func (l *Log) synced(upto LSN) error {
	if err := l.failed(); err != nil {
		return err
	}
	if upto <= l.Durable() {
		return nil
	}
	return l.afterClose(upto)
}

// lead is a committer's sync of round r when nobody else was syncing.
// Rounds that committers registered meanwhile go to the flusher, which
// owns the rounds until none is left.
func (l *Log) lead(r *syncRound) {
	l.flush(r)
	s := &l.syncer
	s.Lock()
	s.running = nil
	more := s.next != nil
	s.busy = more
	s.Unlock()
	close(r.done)
	if more {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// afterClose is Sync's answer for an LSN the log did not make durable
// and did not fail on: the log was closed, or upto is beyond its end.
func (l *Log) afterClose(upto LSN) error {
	if err := l.failed(); err != nil {
		return err
	}
	if upto <= l.Durable() {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mu.closed {
		return ErrClosed
	}
	return fmt.Errorf("wal: cannot sync up to LSN %d beyond the end of the log %d", upto, l.mu.end)
}

// flusher runs the rounds until the log closes.
func (l *Log) flusher() {
	s := &l.syncer
	defer close(s.exited)
	for {
		select {
		case <-s.kick:
		case <-s.stop:
			return
		}
		for {
			// Yield before taking a round: goroutines that are runnable
			// now (committers about to append, and those the last round
			// woke, committing again) join this round instead of waiting
			// a whole fdatasync for the next one. With nothing else to
			// run it returns at once, so a lone committer waits no
			// longer; under load it is PostgreSQL's commit_delay without
			// a fixed delay (BenchmarkAppendSync, 32 goroutines: 15 → 22
			// commits a fdatasync).
			runtime.Gosched()
			s.Lock()
			r := s.next
			s.next = nil
			if r == nil {
				s.busy = false
				s.Unlock()
				break
			}
			s.Unlock()
			l.flush(r)
			s.Lock()
			s.running = nil
			s.Unlock()
			close(r.done)
		}
	}
}

// flush is round r's write and sync: under syncMu (the active segment
// cannot be replaced meanwhile), everything appended so far. Appends
// wait for the write (under mu), not for the sync. Its errors are the
// log's failure, which r's committers read.
func (l *Log) flush(r *syncRound) {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if l.failed() != nil {
		return
	}
	if l.guarded() != nil {
		return
	}
	l.mu.Lock()
	err := l.usableLocked()
	if err == nil {
		err = l.writeLocked()
	}
	f, end := l.mu.active, l.mu.end
	l.mu.Unlock()
	if err != nil || end <= l.Durable() {
		return // failed or closed (Sync tells which), or a roll synced it
	}
	// Committers that appended before the write join this round.
	s := &l.syncer
	s.Lock()
	r.end = end
	s.running = r
	s.Unlock()
	// Older segments were synced when the log rolled past them, and the
	// active one cannot change while syncMu is held: syncing f covers
	// everything up to end.
	if err := l.syncFile(f); err != nil {
		l.fail(err)
		return
	}
	// Checked again after the sync: a commit is acknowledged only if no
	// other process had claimed the directory when it was durable, so
	// that one which recovers the log after its claim holds every commit
	// this one acknowledged.
	if l.guarded() != nil {
		return
	}
	l.durable.Store(uint64(end))
}

// startFlusher starts the flusher of an opened log.
func (l *Log) startFlusher() {
	s := &l.syncer
	s.kick = make(chan struct{}, 1)
	s.stop = make(chan struct{})
	s.exited = make(chan struct{})
	go l.flusher()
}

// stopFlusher stops the flusher once its rounds are done; Syncs that come
// later are answered by finishClose. It returns false when the log was
// already closed.
func (l *Log) stopFlusher() bool {
	s := &l.syncer
	s.Lock()
	if s.closed {
		s.Unlock()
		return false
	}
	s.closed = true
	s.Unlock()
	close(s.stop)
	<-s.exited
	return true
}

// finishClose wakes the committers of a round the flusher did not take
// before it stopped: Close synced what they wait for, or failed.
func (l *Log) finishClose() {
	s := &l.syncer
	s.Lock()
	r := s.next
	s.next = nil
	s.Unlock()
	if r != nil {
		close(r.done)
	}
}

// guarded asks Options.Guard whether the log may still be written, and
// fails the log when not.
func (l *Log) guarded() error {
	if l.guard == nil {
		return nil
	}
	if err := l.guard(); err != nil {
		return l.fail(err)
	}
	return nil
}

// fail records err as the failure that ends the log (the first one wins)
// and returns the log's failure.
func (l *Log) fail(err error) error {
	err = fmt.Errorf("%w: %w", ErrFailed, err)
	l.failure.CompareAndSwap(nil, &err)
	return l.failed()
}

// failed returns the log's failure, or nil while it has none.
func (l *Log) failed() error {
	if p := l.failure.Load(); p != nil {
		return *p
	}
	return nil
}
