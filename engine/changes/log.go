package changes

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// The change log keeps every commit's changes (its whole Batch) for the
// retention (docs/cdc.md), for cdc.changes and for feeds that resume
// from a position. The write-ahead log cannot serve: it records what a
// commit wrote, not what it overwrote, and checkpoints trim it.
//
//	D/cdc/<first ts, 16 hex>.cdc   segments, oldest first
//	record: u32 length | u32 CRC-32C of payload | payload (codec.go)
//
// Every commit is a record, also one that changed nothing the feed
// shows, so that the log's last timestamp tells at open whether a crash
// kept it from recording some commits: those are replayed from the
// write-ahead log into it (storage.Recovery.WatchFrom); commits that no
// longer are in the write-ahead log are a gap, and positions before the
// gap are refused like positions older than the retention. Without a
// data directory the segments are kept in memory.
//
// The hub's dispatcher appends (one goroutine); readers take a copy of
// the segment list and read the bytes each segment held then.

// LogDirName is the change log's directory inside a data directory.
const LogDirName = "cdc"

const (
	recordHeader = 8
	// maxRecordBytes bounds one record: a corrupt length fails.
	maxRecordBytes = 1 << 30
	// segmentBytes is a segment's size before the next one starts.
	segmentBytes = 8 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type segment struct {
	name        string // file name; "" in memory
	first, last uint64 // commit timestamps of its first and last records
	lastAt      time.Time
	size        int64
	mem         []byte // the records, without a data directory
	// index holds every indexEvery-th record's timestamp and offset, for
	// readers to start near a position.
	index   []indexEntry
	records int64
}

type indexEntry struct {
	ts  uint64
	off int64
}

const indexEvery = 32

// note records that a record of commit ts starts at off.
func (s *segment) note(ts uint64, off int64, n int) {
	if n%indexEvery == 0 {
		s.index = append(s.index, indexEntry{ts, off})
	}
}

// startFor is the offset of a record at or before the one of commit ts
// (the last indexed one not after it): reading from there reaches it.
func (s *segment) startFor(ts uint64) int64 {
	i, _ := slices.BinarySearchFunc(s.index, ts, func(e indexEntry, t uint64) int {
		return cmp.Compare(e.ts, t)
	})
	// index[i] is the first entry at or after ts.
	if i < len(s.index) && s.index[i].ts == ts {
		return s.index[i].off
	}
	if i == 0 {
		return 0
	}
	return s.index[i-1].off
}

// Log is the change log (see above).
type Log struct {
	fsys vfs.FS
	dir  string // D/cdc; "" keeps the log in memory
	ret  Retention
	mu   struct {
		sync.Mutex
		segs []*segment
		// floor: every commit after it is in the log (earliest is
		// EndOf(floor)); last: the last commit recorded.
		floor, last uint64
		// lostWhy says why the changes up to floor are gone.
		lostWhy string
		active  vfs.File
		dirty   bool
		err     error // a write failed: the log stops, and says so
	}
}

// OpenLog opens (creating) the change log in dataDir on fsys, or in
// memory when dataDir is "". It reads the segments and cuts a torn last
// record. Once the store is recovered (the log catching up meanwhile,
// CatchUp), Reconcile checks it against the store.
func OpenLog(fsys vfs.FS, dataDir string, ret Retention) (*Log, error) {
	l := &Log{fsys: fsys, ret: ret}
	l.mu.lostWhy = "change capture was not on then"
	if dataDir == "" {
		return l, nil
	}
	l.dir = path.Join(dataDir, LogDirName)
	if err := fsys.Mkdir(l.dir); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("cannot create the change log directory: %w", err)
	}
	ents, err := fsys.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("cannot read the change log directory: %w", err)
	}
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".cdc") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for i, name := range names {
		seg, err := l.scan(name)
		if err != nil {
			return nil, err
		}
		if seg == nil {
			continue
		}
		if n := len(l.mu.segs); n > 0 && seg.first != l.mu.segs[n-1].last+1 {
			// A segment is missing: the ones before it are cut off.
			for len(l.mu.segs) > 0 {
				l.dropOldestLocked("a segment of the change log was missing")
			}
		}
		if len(l.mu.segs) == 0 {
			l.mu.floor = seg.first - 1
			if l.mu.lostWhy == "change capture was not on then" || i == 0 {
				l.mu.lostWhy = "they are older than the change retention"
			}
		}
		l.mu.segs = append(l.mu.segs, seg)
		l.mu.last = seg.last
	}
	return l, nil
}

// CatchUp is the timestamp after which recovery should hand the log
// its commits (storage.Recovery.WatchFrom); false when the log holds
// nothing to continue.
func (l *Log) CatchUp() (uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.last, len(l.mu.segs) > 0
}

// Reconcile checks the log against the recovered store, whose latest
// commit has timestamp ts: commits the log missed (a crash after a
// checkpoint that passed it) make a gap; a log ahead of the store (a
// data directory restored from a copy) is not the store's and is
// dropped, unless replayFollows: a cluster member's store is at its
// checkpoint, and the replicated log hands it the later commits again
// (the log skips those it holds).
func (l *Log) Reconcile(ts uint64, replayFollows bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case len(l.mu.segs) == 0:
		l.gapLocked(ts, l.mu.lostWhy)
	case l.mu.last < ts:
		l.gapLocked(ts, "the change log did not record the commits before it (change capture was off, or a crash outran the log past a checkpoint)")
	case l.mu.last > ts && !replayFollows:
		l.gapLocked(ts, "the change log was ahead of the database (a restored data directory)")
	}
}

// scan reads a segment at open: nil when it holds no record to keep.
func (l *Log) scan(name string) (*segment, error) {
	full := path.Join(l.dir, name)
	b, err := vfs.ReadFile(l.fsys, full)
	if err != nil {
		return nil, fmt.Errorf("cannot read the change log: %w", err)
	}
	seg := &segment{name: name}
	off, recs := 0, 0
	for {
		payload, n := nextRecord(b[off:])
		if n == 0 {
			break
		}
		x, err := decodeBatch(payload)
		if err != nil || seg.size > 0 && x.TS != seg.last+1 {
			break
		}
		if seg.size == 0 {
			seg.first = x.TS
		}
		seg.last, seg.lastAt = x.TS, x.CommittedAt
		seg.note(x.TS, int64(off), recs)
		recs++
		seg.records++
		off += n
		seg.size = int64(off)
	}
	if seg.size == 0 {
		return nil, l.fsys.Remove(full)
	}
	if int(seg.size) < len(b) { // a torn or foreign tail
		f, err := l.fsys.OpenFile(full, os.O_RDWR)
		if err != nil {
			return nil, fmt.Errorf("cannot repair the change log: %w", err)
		}
		err = errors.Join(f.Truncate(seg.size), f.Sync(), f.Close())
		if err != nil {
			return nil, fmt.Errorf("cannot repair the change log: %w", err)
		}
	}
	return seg, nil
}

// nextRecord returns the payload of the record at the start of b and the
// record's length; 0 when b holds no whole, intact record.
func nextRecord(b []byte) ([]byte, int) {
	if len(b) < recordHeader {
		return nil, 0
	}
	n := binary.LittleEndian.Uint32(b)
	if n > maxRecordBytes || int(n) > len(b)-recordHeader {
		return nil, 0
	}
	p := b[recordHeader : recordHeader+int(n)]
	if crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(b[4:]) {
		return nil, 0
	}
	return p, recordHeader + int(n)
}

// Last is the timestamp of the last commit recorded.
func (l *Log) Last() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.last
}

// Err is the error that stopped the log (a failed write), nil while it
// records.
func (l *Log) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.err
}

// Bounds returns the earliest and the current position.
func (l *Log) Bounds() (earliest, current Position) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return EndOf(l.mu.floor), EndOf(l.mu.last)
}

// append records b, a commit's batch (every change). Commits come in
// order; one the log has already (a recovered commit recorded twice) is
// skipped.
func (l *Log) append(b *Batch) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b.TS <= l.mu.last || l.mu.err != nil {
		return
	}
	if b.TS != l.mu.last+1 {
		l.gapLocked(b.TS-1, "the change log could not keep up with the commits")
	}
	payload := appendBatch(nil, b)
	rec := make([]byte, recordHeader, recordHeader+len(payload))
	binary.LittleEndian.PutUint32(rec, uint32(len(payload)))
	binary.LittleEndian.PutUint32(rec[4:], crc32.Checksum(payload, castagnoli))
	rec = append(rec, payload...)
	seg := l.activeLocked(b.TS)
	if seg == nil {
		return
	}
	if l.dir == "" {
		seg.mem = append(seg.mem, rec...)
	} else if _, err := l.mu.active.WriteAt(rec, seg.size); err != nil {
		l.failLocked(fmt.Errorf("cannot write the change log: %w", err))
		return
	}
	if seg.size == 0 {
		seg.first = b.TS
	}
	seg.note(b.TS, seg.size, int(seg.records))
	seg.records++
	seg.size += int64(len(rec))
	seg.last, seg.lastAt = b.TS, b.CommittedAt
	l.mu.last = b.TS
	l.mu.dirty = true
	l.retainLocked(time.Now())
}

// activeLocked is the segment to append to, starting one when the last
// is full.
func (l *Log) activeLocked(ts uint64) *segment {
	n := len(l.mu.segs)
	if n > 0 && l.mu.segs[n-1].size < l.segmentLimit() && (l.dir == "" || l.mu.active != nil) {
		return l.mu.segs[n-1]
	}
	seg := &segment{first: ts}
	if l.dir != "" {
		if err := l.syncLocked(); err != nil {
			return nil
		}
		if l.mu.active != nil {
			l.mu.active.Close()
			l.mu.active = nil
		}
		seg.name = fmt.Sprintf("%016x.cdc", ts)
		f, err := l.fsys.OpenFile(path.Join(l.dir, seg.name), os.O_RDWR|os.O_CREATE|os.O_TRUNC)
		if err != nil {
			l.failLocked(fmt.Errorf("cannot create a change log segment: %w", err))
			return nil
		}
		l.mu.active = f
		if d, err := l.fsys.OpenDir(l.dir); err == nil {
			d.Sync()
			d.Close()
		}
	}
	l.mu.segs = append(l.mu.segs, seg)
	return seg
}

func (l *Log) segmentLimit() int64 {
	if l.ret.MaxBytes > 0 {
		return max(min(segmentBytes, l.ret.MaxBytes/4), 64<<10)
	}
	return segmentBytes
}

// retainLocked drops the oldest segments past the retention; the last
// one stays.
func (l *Log) retainLocked(now time.Time) {
	var total int64
	for _, s := range l.mu.segs {
		total += s.size
	}
	for len(l.mu.segs) > 1 {
		s := l.mu.segs[0]
		old := l.ret.MaxAge > 0 && now.Sub(s.lastAt) > l.ret.MaxAge
		big := l.ret.MaxBytes > 0 && total > l.ret.MaxBytes
		if !old && !big {
			return
		}
		total -= s.size
		l.dropOldestLocked("they are older than the change retention")
	}
}

func (l *Log) dropOldestLocked(why string) {
	s := l.mu.segs[0]
	l.mu.segs = l.mu.segs[1:]
	l.mu.floor, l.mu.lostWhy = s.last, why
	if s.name != "" {
		l.fsys.Remove(path.Join(l.dir, s.name)) // a leftover is dropped at the next open
	}
}

// gapLocked forgets every commit up to ts: they were not recorded.
func (l *Log) gapLocked(ts uint64, why string) {
	for len(l.mu.segs) > 0 {
		l.dropOldestLocked(why)
	}
	if l.mu.active != nil {
		l.mu.active.Close()
		l.mu.active = nil
	}
	l.mu.floor, l.mu.last, l.mu.lostWhy = ts, ts, why
}

// Gap forgets every commit up to ts (a follower that applied commits
// without the feed, a dispatcher that fell behind).
func (l *Log) Gap(ts uint64, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ts > l.mu.last {
		l.gapLocked(ts, why)
	}
}

func (l *Log) failLocked(err error) {
	if l.mu.err == nil {
		l.mu.err = err
	}
}

// Sync makes what was appended durable.
func (l *Log) Sync() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.syncLocked()
}

func (l *Log) syncLocked() error {
	if !l.mu.dirty || l.mu.active == nil {
		return l.mu.err
	}
	if err := l.mu.active.SyncData(); err != nil {
		l.failLocked(fmt.Errorf("cannot sync the change log: %w", err))
		return l.mu.err
	}
	l.mu.dirty = false
	return nil
}

// Close syncs and closes the log.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.syncLocked()
	if l.mu.active != nil {
		err = errors.Join(err, l.mu.active.Close())
		l.mu.active = nil
	}
	return err
}

// abandon closes the log's file without syncing it (a killed process).
func (l *Log) abandon() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mu.active != nil {
		l.mu.active.Close()
		l.mu.active = nil
	}
	l.failLocked(errors.New("the change log was abandoned"))
}
