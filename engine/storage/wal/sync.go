package wal

import (
	"fmt"
)

// Sync returns once the log is durable up to upto (an LSN Append
// returned). Group commit: one caller at a time is the leader and
// writes and fdatasyncs everything appended so far; the others wait for it (one
// broadcast wakes them all) and return without a syscall when its sync
// covered their LSN, or lead the next one. Appends go on during the
// leader's fdatasync, so the next leader's batch is whatever arrived
// meanwhile.
//
// A failed fdatasync fails the log for good (ErrFailed): that Sync and
// every later Append and Sync return it.
func (l *Log) Sync(upto LSN) error {
	if err := l.failed(); err != nil {
		return err
	}
	if upto <= l.Durable() {
		return nil
	}
	w := &l.waiters
	w.Lock()
	if w.cond.L == nil {
		w.cond.L = &w.Mutex
	}
	for w.leading {
		w.cond.Wait()
		if upto <= l.Durable() {
			w.Unlock()
			return l.failed()
		}
	}
	if upto <= l.Durable() {
		w.Unlock()
		return l.failed()
	}
	w.leading = true
	w.Unlock()
	err := l.lead(upto)
	w.Lock()
	w.leading = false
	w.cond.Broadcast()
	w.Unlock()
	return err
}

// lead is the leader's write and sync: under syncMu (the active segment
// cannot be replaced meanwhile), everything appended so far. Appends
// wait for the write (under mu), not for the sync.
func (l *Log) lead(upto LSN) error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	if err := l.failed(); err != nil {
		return err
	}
	if upto <= l.Durable() {
		return nil // a roll or a Close synced it
	}
	if err := l.guarded(); err != nil {
		return err
	}
	l.mu.Lock()
	err := l.usableLocked()
	if err == nil {
		err = l.writeLocked()
	}
	f, end := l.mu.active, l.mu.end
	l.mu.Unlock()
	if err != nil {
		return err
	}
	if upto > end {
		return fmt.Errorf("wal: cannot sync up to LSN %d beyond the end of the log %d", upto, end)
	}
	// Older segments were synced when the log rolled past them, and the
	// active one cannot change while syncMu is held: syncing f covers
	// everything up to end.
	if err := l.syncFile(f); err != nil {
		return l.fail(err)
	}
	// Checked again after the sync: a commit is acknowledged only if no
	// other process had claimed the directory when it was durable, so
	// that one which recovers the log after its claim holds every commit
	// this one acknowledged.
	if err := l.guarded(); err != nil {
		return err
	}
	l.durable.Store(uint64(end))
	return nil
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
