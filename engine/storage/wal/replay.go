package wal

import (
	"fmt"
	"os"
	"slices"
)

// Replay calls fn, in log order, for every record that starts at or after
// from, with the record's start and end LSNs and its payload. The payload
// is only valid during the call. An error from fn stops the replay and is
// returned as is.
//
// from must lie in [Start(), End()]: a from before Start() would skip
// trimmed records without notice. It need not be a record boundary; a
// record that starts before from is skipped whole. Replay reads the
// records appended before it was called; it may run alongside Append and
// Sync, while TrimBefore and Reset wait for it.
func (l *Log) Replay(from LSN, fn func(start, end LSN, payload []byte) error) error {
	l.filesMu.RLock()
	defer l.filesMu.RUnlock()
	l.mu.Lock()
	segs, end, closed := slices.Clone(l.mu.segs), l.mu.end, l.mu.closed
	var werr error
	if !closed {
		werr = l.writeLocked() // the records appended so far, not yet synced
	}
	l.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if werr != nil {
		return werr
	}
	if from < segs[0].base || from > end {
		return fmt.Errorf("wal: cannot replay from LSN %d: the log holds [%d, %d)", from, segs[0].base, end)
	}
	for i, s := range segs {
		segEnd := end
		if i+1 < len(segs) {
			segEnd = segs[i+1].base
		}
		if segEnd <= from {
			continue // every record here starts before from
		}
		if err := l.replaySegment(s, segEnd, from, fn); err != nil {
			return err
		}
	}
	return nil
}

// replaySegment replays the records of s up to LSN segEnd that start at or
// after from.
func (l *Log) replaySegment(s segment, segEnd, from LSN, fn func(start, end LSN, payload []byte) error) error {
	f, err := l.fs.OpenFile(s.path, os.O_RDONLY)
	if err != nil {
		return fmt.Errorf("cannot open WAL segment %s: %w", s.path, err)
	}
	defer f.Close()
	// Records before from are read to find the boundaries (from need not
	// be one) and checked, but not decompressed.
	skip := int64(0)
	if from > s.base {
		skip = int64(from - s.base)
	}
	sc := recordScanner{fr: newFrameReader(f, s.base, int64(segEnd-s.base), l.limit), dec: l.dec, decodeFrom: skip}
	for sc.Next() {
		if sc.start < skip {
			continue
		}
		if err := fn(s.base+LSN(sc.start), s.base+LSN(sc.end), sc.payload); err != nil {
			return err
		}
	}
	if sc.err != nil {
		return fmt.Errorf("cannot replay WAL segment %s: %w", s.path, sc.err)
	}
	if sc.bad != nil {
		return &CorruptError{File: s.path, Offset: sc.bad.off, Reason: sc.bad.reason}
	}
	return nil
}
