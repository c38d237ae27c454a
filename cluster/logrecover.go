package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hashicorp/raft"
)

// loadSegment opens seg, checks every record and indexes them. In the
// last segment a torn tail (a bad record that no valid later record
// follows) is cut and reported; any other bad record is ErrLogCorrupt.
func (s *LogStore) loadSegment(seg *segment, last bool) (truncated bool, err error) {
	f, err := s.fs.OpenFile(seg.path, os.O_RDWR)
	if err != nil {
		return false, fmt.Errorf("cluster: cannot open raft log segment %s: %w", seg.path, err)
	}
	seg.f = f
	st, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("cluster: cannot stat %s: %w", seg.path, err)
	}
	// The whole file at once: a segment is SegmentSize plus one batch at
	// most, and every length in it is then bounded by the bytes read.
	b := make([]byte, st.Size())
	if n, err := f.ReadAt(b, 0); err != nil && !(errors.Is(err, io.EOF) && n == len(b)) {
		return false, fmt.Errorf("cluster: cannot read raft log segment %s: %w", seg.path, err)
	}
	seg.offs = []int64{0}
	var l raft.Log
	for off := 0; off < len(b); {
		want := seg.first + seg.count()
		n, err := decodeRecord(b[off:], want, &l)
		if err == nil {
			off += n
			seg.offs = append(seg.offs, int64(off))
			continue
		}
		if !last {
			return false, fmt.Errorf("cluster: raft log segment %s, entry %d at offset %d: %w: %w", seg.path, want, off, err, ErrLogCorrupt)
		}
		if at, idx, ok := laterRecord(b, off+1, want); ok {
			return false, fmt.Errorf("cluster: raft log segment %s, entry %d at offset %d: %w, yet entry %d follows at offset %d: %w",
				seg.path, want, off, err, idx, at, ErrLogCorrupt)
		}
		// A torn write: never acknowledged, so never applied anywhere.
		if err := f.Truncate(int64(off)); err != nil {
			return false, fmt.Errorf("cluster: cannot truncate the torn tail of %s: %w", seg.path, err)
		}
		if err := f.SyncData(); err != nil {
			return false, fmt.Errorf("cluster: cannot sync %s: %w", seg.path, err)
		}
		return true, nil
	}
	return false, nil
}

// laterRecord looks in b from offset from on for a valid record of an
// index after want: evidence that the log went on past a bad record, so
// the bad one is damage and not a torn tail. The index is compared
// before the CRC is computed, so the scan costs little.
func laterRecord(b []byte, from int, want uint64) (at int, idx uint64, ok bool) {
	var l raft.Log
	for p := from; p+recordHeader+recordFixed <= len(b); p++ {
		idx = binary.LittleEndian.Uint64(b[p+recordHeader:])
		if idx <= want || idx-want > uint64(len(b)) {
			continue
		}
		if _, err := recordLen(b[p:]); err != nil {
			continue
		}
		if _, err := decodeRecord(b[p:], idx, &l); err == nil {
			return p, idx, true
		}
	}
	return 0, 0, false
}
