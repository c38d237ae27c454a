package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// LogStore is raft's LogStore: an append-only log of entries in segment
// files of one directory (<data-dir>/raft/log):
//
//	log-00000000000000000001.seg   entries 1 … 41,222
//	log-00000000000000041223.seg   entries 41,223 … last   ← appended to
//	first                          the first index kept (after compaction)
//
// A segment is named by its first entry's index (20 decimal digits, so
// name order is index order) and holds consecutive entries, each one
// record (logrecord.go), with no header. StoreLogs writes a batch's
// records in one write at the end of the last segment and fdatasyncs
// once before it returns: raft acknowledges an append only after that.
// A batch never spans segments: once the last segment holds
// SegmentSize bytes the next batch starts a new one, created, written,
// fdatasynced and its directory entry fsynced; so only the last segment
// can hold a torn write.
//
// Open reads every segment and checks every record, building the index
// (entry → segment, offset) in memory (8 bytes an entry). A bad record
// in the last segment is a torn write when no valid record of a later
// index follows it in the file (it was never acknowledged): the file is
// truncated there. A bad record followed by a valid one, or one in an
// earlier segment, is damage: Open fails with ErrLogCorrupt naming the
// file and offset, and changes nothing. (As for the engine's write-ahead
// log, a crash whose writeback reordered the pages of one unsynced batch
// can surface as damage; it needs an operator.)
//
// DeleteRange serves raft's two uses. Compaction after a snapshot drops
// a prefix: the file "first" is rewritten atomically with the new first
// index, then the segments wholly below it are removed (entries below it
// in the segment it falls in stay on disk, unread). A follower's
// conflicting suffix is cut by truncating the segment it starts in and
// removing the later ones. The store is monotonic (raft.MonotonicLogStore):
// raft empties it before it appends after an installed snapshot, so an
// append always continues the log or starts an empty one.
type LogStore struct {
	fs      vfs.FS
	dir     string
	segSize int64
	// wmu serialises the writers (StoreLogs, DeleteRange, Close), which
	// read the fields below without mu and change them under it.
	wmu sync.Mutex
	buf []byte // StoreLogs' encoding buffer, under wmu
	// failed is set when a sync failed: what the file holds is unknown,
	// so no later write is trusted. Under wmu.
	failed error
	// mu guards segs, first and last; readers hold it (read) while they
	// read a segment's file, so it is not truncated or closed under them.
	mu    sync.RWMutex
	segs  []*segment
	first uint64 // 0: empty
	last  uint64
}

// segment is one file: entries first … first+len(offs)-2, entry
// first+k at bytes offs[k] … offs[k+1].
type segment struct {
	first uint64
	path  string
	f     vfs.File
	offs  []int64
}

func (s *segment) count() uint64 { return uint64(len(s.offs) - 1) }
func (s *segment) size() int64   { return s.offs[len(s.offs)-1] }

// DefaultSegmentSize is the size past which the log starts a new segment.
const DefaultSegmentSize = 64 << 20

// ErrLogCorrupt is wrapped by the errors of a raft log or stable state
// that does not read back: damage, not a torn write.
var ErrLogCorrupt = errors.New("cluster: raft log is corrupt")

const (
	segPrefix  = "log-"
	segSuffix  = ".seg"
	firstName  = "first"
	logDirName = "log"
)

func segmentName(first uint64) string { return fmt.Sprintf("%s%020d%s", segPrefix, first, segSuffix) }

// OpenLogStore opens the log in dir, creating dir when missing, and
// recovers it (a torn tail truncated). segSize 0 is DefaultSegmentSize.
func OpenLogStore(fsys vfs.FS, dir string, segSize int64) (*LogStore, error) {
	if segSize <= 0 {
		segSize = DefaultSegmentSize
	}
	s := &LogStore{fs: fsys, dir: dir, segSize: segSize}
	if _, err := vfs.MkdirAllSync(fsys, dir); err != nil {
		return nil, fmt.Errorf("cluster: cannot create the raft log directory %s: %w", dir, err)
	}
	if err := s.recover(); err != nil {
		s.closeFiles()
		return nil, err
	}
	return s, nil
}

// recover lists, checks and indexes the segments (logrecover.go).
func (s *LogStore) recover() error {
	marker, err := s.readFirst()
	if err != nil {
		return err
	}
	entries, err := s.fs.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("cluster: cannot list the raft log %s: %w", s.dir, err)
	}
	for _, e := range entries {
		if first, ok := parseSegmentName(e.Name()); ok && e.Type().IsRegular() {
			s.segs = append(s.segs, &segment{first: first, path: filepath.Join(s.dir, e.Name())})
		}
	}
	dirty := false
	for i, seg := range s.segs {
		truncated, err := s.loadSegment(seg, i == len(s.segs)-1)
		if err != nil {
			return err
		}
		dirty = dirty || truncated
	}
	// Empty segments (a crash after one was created) and those wholly
	// below the first index (a crash during compaction) hold nothing.
	keep := s.segs[:0]
	for _, seg := range s.segs {
		if seg.count() == 0 || (marker != 0 && seg.first+seg.count() <= marker) {
			seg.f.Close()
			if err := s.fs.Remove(seg.path); err != nil {
				return fmt.Errorf("cluster: cannot remove %s: %w", seg.path, err)
			}
			dirty = true
			continue
		}
		keep = append(keep, seg)
	}
	s.segs = keep
	for i := 1; i < len(s.segs); i++ {
		if prev := s.segs[i-1]; prev.first+prev.count() != s.segs[i].first {
			return fmt.Errorf("cluster: raft log segment %s follows entry %d: %w", s.segs[i].path, prev.first+prev.count()-1, ErrLogCorrupt)
		}
	}
	if dirty {
		if err := vfs.SyncDir(s.fs, s.dir); err != nil {
			return fmt.Errorf("cluster: cannot sync %s: %w", s.dir, err)
		}
	}
	if len(s.segs) > 0 {
		s.first = max(s.segs[0].first, marker)
		tail := s.segs[len(s.segs)-1]
		s.last = tail.first + tail.count() - 1
	}
	return nil
}

func parseSegmentName(name string) (uint64, bool) {
	var first uint64
	if _, err := fmt.Sscanf(name, segPrefix+"%020d"+segSuffix, &first); err != nil || segmentName(first) != name || first == 0 {
		return 0, false
	}
	return first, true
}

// readFirst reads the first-index file: 0 when there is none.
func (s *LogStore) readFirst() (uint64, error) {
	path := filepath.Join(s.dir, firstName)
	b, err := vfs.ReadFile(s.fs, path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cluster: cannot read %s: %w", path, err)
	}
	if len(b) != 12 || crc32.Checksum(b[:8], castagnoli) != binary.LittleEndian.Uint32(b[8:]) {
		return 0, fmt.Errorf("cluster: %s does not check: %w", path, ErrLogCorrupt)
	}
	return binary.LittleEndian.Uint64(b), nil
}

// writeFirst replaces the first-index file atomically.
func (s *LogStore) writeFirst(first uint64) error {
	path := filepath.Join(s.dir, firstName)
	b := binary.LittleEndian.AppendUint64(nil, first)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	if err := vfs.WriteFileSync(s.fs, path+".tmp", b); err != nil {
		return fmt.Errorf("cluster: cannot write %s.tmp: %w", path, err)
	}
	if err := s.fs.Rename(path+".tmp", path); err != nil {
		return fmt.Errorf("cluster: cannot rename %s.tmp: %w", path, err)
	}
	if err := vfs.SyncDir(s.fs, s.dir); err != nil {
		return fmt.Errorf("cluster: cannot sync %s: %w", s.dir, err)
	}
	return nil
}

// FirstIndex returns the first index stored, 0 for none.
func (s *LogStore) FirstIndex() (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.first, nil
}

// LastIndex returns the last index stored, 0 for none.
func (s *LogStore) LastIndex() (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.last, nil
}

// IsMonotonic tells raft to empty the store after installing a snapshot
// rather than leave a gap in it (raft.MonotonicLogStore).
func (s *LogStore) IsMonotonic() bool { return true }

// GetLog reads the entry at index into l. Its Data and Extensions are
// its own (one allocation for both).
func (s *LogStore) GetLog(index uint64, l *raft.Log) error {
	s.mu.RLock()
	if s.first == 0 || index < s.first || index > s.last {
		s.mu.RUnlock()
		return raft.ErrLogNotFound
	}
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].first > index }) - 1
	seg := s.segs[i]
	k := index - seg.first
	off, end := seg.offs[k], seg.offs[k+1]
	b := make([]byte, end-off)
	_, err := seg.f.ReadAt(b, off)
	s.mu.RUnlock()
	if err != nil {
		return fmt.Errorf("cluster: cannot read raft log entry %d from %s: %w", index, seg.path, err)
	}
	if _, err := decodeRecord(b, index, l); err != nil {
		return fmt.Errorf("cluster: raft log entry %d in %s at offset %d: %w: %w", index, seg.path, off, err, ErrLogCorrupt)
	}
	return nil
}

// StoreLog stores one entry.
func (s *LogStore) StoreLog(l *raft.Log) error { return s.StoreLogs([]*raft.Log{l}) }

// StoreLogs appends consecutive entries in one write and one fdatasync.
// Entries at indexes the log holds replace them and everything after
// (raft deletes a conflicting suffix first; the contract allows both).
func (s *LogStore) StoreLogs(logs []*raft.Log) error {
	if len(logs) == 0 {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.failed != nil {
		return s.failed
	}
	start := logs[0].Index
	for i, l := range logs {
		if l.Index != start+uint64(i) {
			return fmt.Errorf("cluster: raft log batch not consecutive: entry %d follows %d", l.Index, start+uint64(i)-1)
		}
		if n := recordSize(l) - recordHeader; n > maxRecordPayload {
			return fmt.Errorf("cluster: raft log entry %d: %d bytes, more than the %d a record holds", l.Index, n, maxRecordPayload)
		}
	}
	if start == 0 {
		return errors.New("cluster: raft log entry 0: indexes start at 1")
	}
	if s.first != 0 && start >= s.first && start <= s.last {
		if err := s.truncateFrom(start); err != nil {
			return err
		}
	}
	switch {
	case s.first == 0:
		if err := s.startEmpty(start); err != nil {
			return err
		}
	case start < s.first:
		return fmt.Errorf("cluster: raft log entry %d is below the first one kept, %d", start, s.first)
	case start > s.last+1:
		return fmt.Errorf("cluster: raft log entry %d leaves a gap after %d", start, s.last)
	}
	if len(s.segs) == 0 || s.segs[len(s.segs)-1].size() >= s.segSize {
		if err := s.newSegment(start); err != nil {
			return err
		}
	}
	tail := s.segs[len(s.segs)-1]
	s.buf = s.buf[:0]
	offs := make([]int64, 0, len(logs))
	base := tail.size()
	for _, l := range logs {
		s.buf = appendRecord(s.buf, l)
		offs = append(offs, base+int64(len(s.buf)))
	}
	if _, err := tail.f.WriteAt(s.buf, base); err != nil {
		// Nothing acknowledged: cut what part of it was written.
		if terr := tail.f.Truncate(base); terr != nil {
			s.failed = fmt.Errorf("cluster: raft log %s unusable after a failed write: %w", tail.path, errors.Join(err, terr))
		}
		return fmt.Errorf("cluster: cannot write the raft log %s: %w", tail.path, err)
	}
	if err := tail.f.SyncData(); err != nil {
		// After a failed fdatasync the page cache may hold what the disk
		// does not: nothing later is trusted (the member must restart).
		s.failed = fmt.Errorf("cluster: raft log %s unusable after a failed fdatasync: %w", tail.path, err)
		return s.failed
	}
	if cap(s.buf) > 4<<20 {
		s.buf = nil // a huge batch's buffer is not kept
	}
	s.mu.Lock()
	tail.offs = append(tail.offs, offs...)
	if s.first == 0 {
		s.first = start
	}
	s.last = logs[len(logs)-1].Index
	s.mu.Unlock()
	return nil
}

// startEmpty readies an empty log for entries from start: a first-index
// file from before it was emptied must not hide them.
func (s *LogStore) startEmpty(start uint64) error {
	marker, err := s.readFirst()
	if err != nil || marker == 0 || marker == start {
		return err
	}
	return s.writeFirst(start)
}

// newSegment creates the segment starting at first, its directory entry
// synced, and makes it the last.
func (s *LogStore) newSegment(first uint64) error {
	seg := &segment{first: first, path: filepath.Join(s.dir, segmentName(first)), offs: []int64{0}}
	f, err := s.fs.OpenFile(seg.path, os.O_RDWR|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return fmt.Errorf("cluster: cannot create raft log segment %s: %w", seg.path, err)
	}
	seg.f = f
	if err := vfs.SyncDir(s.fs, s.dir); err != nil {
		f.Close()
		s.fs.Remove(seg.path)
		return fmt.Errorf("cluster: cannot sync %s: %w", s.dir, err)
	}
	s.mu.Lock()
	s.segs = append(s.segs, seg)
	s.mu.Unlock()
	return nil
}

// DeleteRange deletes the entries lo … hi, both included: a prefix
// (compaction) or a suffix (a conflict); raft deletes nothing else.
func (s *LogStore) DeleteRange(lo, hi uint64) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.failed != nil {
		return s.failed
	}
	if s.first == 0 || hi < s.first || lo > s.last || lo > hi {
		return nil
	}
	switch {
	case hi >= s.last:
		return s.truncateFrom(max(lo, s.first))
	case lo <= s.first:
		return s.dropBefore(hi + 1)
	}
	return fmt.Errorf("cluster: cannot delete raft log entries %d … %d from the middle of %d … %d", lo, hi, s.first, s.last)
}

// truncateFrom removes the entries from index on: later segments first,
// so a crash leaves a prefix of the log.
func (s *LogStore) truncateFrom(index uint64) error {
	s.mu.Lock()
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].first >= index })
	if index <= s.first {
		i = 0 // the log empties: entries below first go too
	}
	gone := slices.Clone(s.segs[i:])
	var cut *segment
	var cutAt int64
	if i > 0 {
		cut = s.segs[i-1]
		if k := index - cut.first; k < cut.count() {
			cut.offs = cut.offs[:k+1]
			cutAt = cut.size()
		} else {
			cut = nil
		}
	}
	s.segs = s.segs[:i]
	if index <= s.first {
		s.first, s.last = 0, 0
	} else {
		s.last = index - 1
	}
	s.mu.Unlock()
	if err := s.removeSegments(gone); err != nil {
		return err
	}
	if cut != nil {
		if err := cut.f.Truncate(cutAt); err != nil {
			return fmt.Errorf("cluster: cannot truncate %s: %w", cut.path, err)
		}
		if err := cut.f.SyncData(); err != nil {
			s.failed = fmt.Errorf("cluster: raft log %s unusable after a failed fdatasync: %w", cut.path, err)
			return s.failed
		}
	}
	return nil
}

// dropBefore makes first the log's first entry: the first-index file
// first, then the segments wholly below it are removed.
func (s *LogStore) dropBefore(first uint64) error {
	if err := s.writeFirst(first); err != nil {
		return err
	}
	s.mu.Lock()
	i := sort.Search(len(s.segs), func(i int) bool { return s.segs[i].first > first }) - 1
	gone := slices.Clone(s.segs[:i])
	s.segs = slices.Delete(s.segs, 0, i)
	s.first = first
	s.mu.Unlock()
	return s.removeSegments(gone)
}

// removeSegments closes and removes segs, last first, and syncs the
// directory.
func (s *LogStore) removeSegments(segs []*segment) error {
	if len(segs) == 0 {
		return nil
	}
	for _, seg := range slices.Backward(segs) {
		seg.f.Close()
		if err := s.fs.Remove(seg.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cluster: cannot remove %s: %w", seg.path, err)
		}
	}
	if err := vfs.SyncDir(s.fs, s.dir); err != nil {
		return fmt.Errorf("cluster: cannot sync %s: %w", s.dir, err)
	}
	return nil
}

// Close closes the segment files.
func (s *LogStore) Close() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.closeFiles()
	s.segs = nil
	s.first, s.last = 0, 0
	if s.failed == nil {
		s.failed = errors.New("cluster: the raft log is closed")
	}
	return err
}

func (s *LogStore) closeFiles() error {
	var errs []error
	for _, seg := range s.segs {
		if seg.f != nil {
			errs = append(errs, seg.f.Close())
		}
	}
	return errors.Join(errs...)
}

var (
	_ raft.LogStore          = (*LogStore)(nil)
	_ raft.MonotonicLogStore = (*LogStore)(nil)
)
