package wal

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// CorruptError reports a bad record that is not a torn tail: a valid
// record follows it, or the segments do not join up. Open returns it
// without changing any file; Replay returns it for a record that cannot
// be read back.
type CorruptError struct {
	File   string // the segment file
	Offset int64  // offset of the bad frame in File
	Reason string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("wal: corrupt log: %s at offset %d: %s", e.File, e.Offset, e.Reason)
}

// recover checks segs (as listed, oldest first) and returns the segments
// that make up the log and its end. A torn tail is cut off first.
func (l *Log) recover(segs []segment) ([]segment, LSN, error) {
	for i, s := range segs {
		size, bad, err := l.checkSegment(s)
		if err != nil {
			return nil, 0, err
		}
		if bad == nil {
			end := s.base + LSN(size)
			if i+1 == len(segs) {
				return segs, end, nil
			}
			if next := segs[i+1]; next.base != end {
				return nil, 0, &CorruptError{File: next.path, Reason: fmt.Sprintf(
					"segment starts at LSN %d but the previous one (%s) ends at %d", next.base, s.path, end)}
			}
			continue
		}
		// Zeros after the last whole record of the last segment are its
		// preallocated space (prealloc.go): the log ends there. A log
		// that does not preallocate cuts them off, so that its segments
		// hold records alone.
		if i+1 == len(segs) && bad.off == bad.recStart {
			zeros, err := zerosFrom(l.fs, s.path, bad.off)
			if err != nil {
				return nil, 0, err
			}
			if zeros {
				if !l.prealloc {
					if err := l.truncateSegment(s.path, bad.off); err != nil {
						return nil, 0, err
					}
				}
				return segs, s.base + LSN(bad.off), nil
			}
		}
		// A valid record after the bad frame, in this segment or a later
		// one, means the log went on past it: corruption, not a tear.
		for j, later := range segs[i:] {
			from := int64(0)
			if j == 0 {
				from = bad.off
			}
			file, off, found, err := l.findRecord(later, from)
			if err != nil {
				return nil, 0, err
			}
			if found {
				return nil, 0, &CorruptError{File: s.path, Offset: bad.off, Reason: fmt.Sprintf(
					"%s, and a valid record follows at %s offset %d", bad.reason, file, off)}
			}
		}
		end, err := l.cutTornTail(segs[i:], size, bad)
		if err != nil {
			return nil, 0, err
		}
		return segs[:i+1], end, nil
	}
	panic("BUG: wal: recover called without segments")
}

// checkSegment reads every frame of s. It returns the file size and the
// first bad frame, nil when the segment is whole.
func (l *Log) checkSegment(s segment) (int64, *badFrame, error) {
	f, err := l.fs.OpenFile(s.path, os.O_RDONLY)
	if err != nil {
		return 0, nil, fmt.Errorf("cannot open WAL segment %s: %w", s.path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, nil, fmt.Errorf("cannot stat WAL segment %s: %w", s.path, err)
	}
	sc := recordScanner{fr: newFrameReader(f, s.base, st.Size(), l.limit)}
	for sc.Next() {
	}
	if sc.err != nil {
		return 0, nil, fmt.Errorf("cannot check WAL segment %s: %w", s.path, sc.err)
	}
	return st.Size(), sc.bad, nil
}

// findRecord looks in s, from offset from on, for a valid frame that
// starts a record: wherever the magic occurs, the frame there is checked
// whole, CRC included. Continuation frames do not count; they may be the
// intact rest of a torn multi-frame record.
func (l *Log) findRecord(s segment, from int64) (string, int64, bool, error) {
	f, err := l.fs.OpenFile(s.path, os.O_RDONLY)
	if err != nil {
		return "", 0, false, fmt.Errorf("cannot open WAL segment %s: %w", s.path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", 0, false, fmt.Errorf("cannot stat WAL segment %s: %w", s.path, err)
	}
	fr := newFrameReader(f, s.base, st.Size(), l.limit)
	// Read windows that overlap by len(magic)-1 bytes, so a magic that
	// straddles two windows is seen once.
	window := make([]byte, min(st.Size(), readBuffer))
	for pos := from; pos+headerSize <= st.Size(); {
		n, err := f.ReadAt(window, pos)
		if err != nil && !errors.Is(err, io.EOF) {
			return "", 0, false, fmt.Errorf("cannot scan WAL segment %s: %w", s.path, err)
		}
		w := window[:n]
		for i := 0; ; i++ {
			k := bytes.Index(w[i:], magic[:])
			if k < 0 {
				break
			}
			i += k
			fr.seek(pos + int64(i))
			fm, err := fr.next(false)
			if _, bad := err.(*badFrame); err != nil && !bad {
				return "", 0, false, fmt.Errorf("cannot scan WAL segment %s: %w", s.path, err)
			}
			if err == nil && fm.flags&flagFirst != 0 {
				return s.path, fm.off, true, nil
			}
		}
		if n < len(window) {
			break
		}
		pos += int64(n - (len(magic) - 1))
	}
	return "", 0, false, nil
}

// cutTornTail removes the torn record bad (in segs[0], whose size is
// size) and every later segment, which hold no valid record. Later
// segments go first: a crash in between leaves the torn record to be
// found again, never a segment that does not join its predecessor.
func (l *Log) cutTornTail(segs []segment, size int64, bad *badFrame) (LSN, error) {
	torn := segs[0]
	removed := size - bad.recStart
	if len(segs) > 1 {
		for i := len(segs) - 1; i > 0; i-- {
			st, err := l.fs.Stat(segs[i].path)
			if err != nil {
				return 0, fmt.Errorf("cannot stat WAL segment %s: %w", segs[i].path, err)
			}
			if err := l.fs.Remove(segs[i].path); err != nil {
				return 0, fmt.Errorf("cannot remove WAL segment %s after a torn record: %w", segs[i].path, err)
			}
			removed += st.Size()
			l.logger.Warn("removed a WAL segment after a torn record", "file", segs[i].path, "bytes", st.Size())
		}
		if err := l.syncDir(l.dir); err != nil {
			return 0, err
		}
	}
	if err := l.truncateSegment(torn.path, bad.recStart); err != nil {
		return 0, err
	}
	l.logger.Warn("truncated a torn record at the end of the WAL",
		"file", torn.path, "offset", bad.recStart, "bytes", removed, "reason", bad.reason)
	return torn.base + LSN(bad.recStart), nil
}

// truncateSegment cuts the segment file at path to off bytes and makes
// the cut durable.
func (l *Log) truncateSegment(path string, off int64) error {
	f, err := l.fs.OpenFile(path, os.O_RDWR)
	if err != nil {
		return fmt.Errorf("cannot open WAL segment %s to truncate it: %w", path, err)
	}
	defer f.Close()
	if err := f.Truncate(off); err != nil {
		return fmt.Errorf("cannot truncate WAL segment %s at offset %d: %w", path, off, err)
	}
	return l.syncFile(f)
}
