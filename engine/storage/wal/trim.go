package wal

import (
	"errors"
	"fmt"
	"io/fs"
)

// TrimBefore deletes the segments that end at or before lsn, typically
// the LSN of a checkpoint: their records are no longer needed. The active
// segment is never deleted, so Start() moves to the first LSN of the
// oldest segment kept, which may be before lsn.
func (l *Log) TrimBefore(lsn LSN) error {
	l.filesMu.Lock()
	defer l.filesMu.Unlock()
	l.mu.Lock()
	if l.mu.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	n := 0
	for n+1 < len(l.mu.segs) && l.mu.segs[n+1].base <= lsn {
		n++
	}
	victims := append([]segment(nil), l.mu.segs[:n]...)
	// The list shrinks before the files go, so Start() never names a
	// deleted segment; a file whose removal fails lingers, harmlessly
	// (segments stay contiguous), until the next trim or Open.
	l.mu.segs = append(l.mu.segs[:0:0], l.mu.segs[n:]...)
	l.mu.Unlock()
	if len(victims) == 0 {
		return nil
	}
	// Oldest first: a crash midway leaves a log that still starts at a
	// segment and joins up.
	for _, s := range victims {
		if err := l.fs.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot remove WAL segment %s: %w", s.path, err)
		}
	}
	return l.syncDir(l.dir)
}

// Reset makes an empty log (Start() == End()) start at LSN at, so that
// its first record gets LSN at: for a log that must continue from a
// checkpoint made elsewhere, such as an import's base. It fails on a log
// that holds records. Options.StartAt does the same when the directory
// holds no segments yet.
func (l *Log) Reset(at LSN) error {
	l.filesMu.Lock()
	defer l.filesMu.Unlock()
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usableLocked(); err != nil {
		return err
	}
	old := l.mu.segs[0]
	if len(l.mu.segs) != 1 || old.base != l.mu.end {
		return fmt.Errorf("wal: cannot reset a log that holds records (LSNs [%d, %d))", old.base, l.mu.end)
	}
	if at == old.base {
		return nil
	}
	// The old segment goes first: a crash in between leaves an empty
	// directory (Open then starts at Options.StartAt), never two
	// segments that do not join up.
	l.mu.active.Close()
	if err := l.fs.Remove(old.path); err != nil {
		return l.fail(fmt.Errorf("cannot remove WAL segment %s: %w", old.path, err))
	}
	s, f, err := createSegment(l.fs, l.dir, at)
	if err != nil {
		return l.fail(err)
	}
	l.preallocate(f, at, at)
	if err := l.syncDir(l.dir); err != nil {
		f.Close()
		return l.fail(err)
	}
	l.mu.segs = []segment{s}
	l.mu.active = f
	l.mu.end, l.mu.written = at, at
	l.durable.Store(uint64(at))
	return nil
}
