package changes

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/quiverdb/quiver/engine/errs"
)

// Reading the change log: the commits after a position, oldest first.

// Position errors (docs/cdc.md): a malformed token or one past the
// current position is 22023 (invalid parameter value); one older than
// what the log keeps is 22003 (out of range): its changes are gone.

func expired(from Position, floor uint64, why string) error {
	return errs.DataCode(errs.CodeOverflow,
		"change position %s is older than the oldest change kept (cdc.earliest() is %s): the changes after it are gone, %s; read the current state with a query and go on from cdc.current()",
		from, EndOf(floor), why)
}

// Check tells whether changes can be read after from.
func (l *Log) Check(from Position) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.checkLocked(from)
}

func (l *Log) checkLocked(from Position) error {
	switch {
	case l.mu.err != nil:
		return errs.Wrap(errs.CodeTransaction, errs.CatTransaction, l.mu.err, "the change log failed")
	case from.TS < l.mu.floor || from.TS == l.mu.floor && from.Ordinal != lastOrdinal:
		return expired(from, l.mu.floor, l.mu.lostWhy)
	case from.TS > l.mu.last:
		return errs.DataCode(errs.CodeInvalidParam, "change position %s is in the future: the current position is %s", from, EndOf(l.mu.last))
	}
	return nil
}

// Each calls fn with every commit after from up to commit upTo, oldest
// first, each with only its changes after from (a commit may be empty),
// until fn returns false or an error.
func (l *Log) Each(from Position, upTo uint64, fn func(*Batch) (bool, error)) error {
	return l.EachSized(from, upTo, func(b *Batch, _ int) (bool, error) { return fn(b) })
}

// EachSized is Each, telling fn also the bytes of each commit's record:
// a reader that holds what it decodes charges its memory by it (a
// decoded record is a few times its encoding: cdc.changes).
func (l *Log) EachSized(from Position, upTo uint64, fn func(b *Batch, recordBytes int) (bool, error)) error {
	l.mu.Lock()
	if err := l.checkLocked(from); err != nil {
		l.mu.Unlock()
		return err
	}
	var segs []segment
	for _, s := range l.mu.segs {
		if s.last > from.TS || s.last == from.TS && from.Ordinal != lastOrdinal {
			segs = append(segs, *s) // a copy: size and mem as of now
		}
	}
	floor, why := l.mu.floor, l.mu.lostWhy
	l.mu.Unlock()
	for i := range segs {
		more, err := l.eachIn(&segs[i], from, upTo, fn)
		if errors.Is(err, fs.ErrNotExist) { // dropped by the retention meanwhile
			return expired(from, floor, why)
		}
		if err != nil || !more {
			return err
		}
	}
	return nil
}

func (l *Log) eachIn(s *segment, from Position, upTo uint64, fn func(*Batch, int) (bool, error)) (bool, error) {
	need := from.TS // the first commit to read: from's own when from is inside it
	if from.Ordinal == lastOrdinal {
		need++
	}
	off := s.startFor(need)
	var r io.Reader
	if l.dir == "" {
		r = bytesReader(s.mem[off:s.size])
	} else {
		f, err := l.fsys.OpenFile(path.Join(l.dir, s.name), os.O_RDONLY)
		if err != nil {
			return false, err
		}
		defer f.Close()
		r = bufio.NewReaderSize(io.NewSectionReader(f, off, s.size-off), 64<<10)
	}
	var head [recordHeader]byte
	var buf []byte
	for {
		if _, err := io.ReadFull(r, head[:]); err == io.EOF {
			return true, nil
		} else if err != nil {
			return false, fmt.Errorf("cannot read the change log: %w", err)
		}
		n := binary.LittleEndian.Uint32(head[:])
		if n > maxRecordBytes {
			return false, errors.New("the change log is corrupt: a record's length is out of bounds")
		}
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(r, buf); err != nil {
			return false, fmt.Errorf("cannot read the change log: %w", err)
		}
		ts, ok := recordTS(buf)
		if !ok {
			return false, errors.New("the change log is corrupt: a record has no timestamp")
		}
		if ts < from.TS || ts == from.TS && from.Ordinal == lastOrdinal {
			continue
		}
		if ts > upTo {
			return false, nil
		}
		b, err := decodeBatch(buf)
		if err != nil {
			return false, fmt.Errorf("the change log is corrupt: %w", err)
		}
		if ts == from.TS && b.Bulk == nil {
			i := 0
			for i < len(b.Changes) && b.Changes[i].Ordinal <= from.Ordinal {
				i++
			}
			b.Changes = b.Changes[i:]
		} else if ts == from.TS { // a bulk commit is one change, ordinal 0
			continue
		}
		if more, err := fn(&b, int(n)); err != nil || !more {
			return false, err
		}
	}
}

// recordTS reads a record's commit timestamp without decoding it.
func recordTS(p []byte) (uint64, bool) {
	if len(p) < 2 || p[0] != batchVersion {
		return 0, false
	}
	ts, n := binary.Uvarint(p[1:])
	return ts, n > 0
}

type sliceReader struct{ b []byte }

func bytesReader(b []byte) *sliceReader { return &sliceReader{b} }

func (r *sliceReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.b)
	r.b = r.b[n:]
	return n, nil
}
