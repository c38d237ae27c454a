package wal

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// DefaultSegmentSize is the segment size when Options leaves it zero.
const DefaultSegmentSize = 64 << 20

// keepBuffer is the largest append buffer kept between appends.
const keepBuffer = 1 << 20

var (
	// ErrClosed is returned by every call on a closed Log.
	ErrClosed = errors.New("wal: log closed")
	// ErrFailed wraps the error of the failed fsync that made a Log
	// unusable; every later Append and Sync returns it.
	ErrFailed = errors.New("wal: log failed")
)

// Options configures Open.
type Options struct {
	// SegmentSize is the size at which the active segment is closed and a
	// new one started (default 64 MiB).
	SegmentSize int64
	// StartAt is the LSN of the first record when dir holds no segments
	// yet, e.g. the LSN of a checkpoint an import produced. Ignored when
	// segments exist; see also Reset.
	StartAt LSN
	// Logger receives the truncation of a torn tail (Warn). Default
	// slog.Default().
	Logger *slog.Logger
	// Preallocate gives the active segment its full size up front, so
	// that a sync need not commit a new file size (prealloc.go).
	Preallocate bool
	// FS is the filesystem the segments are on; nil means vfs.Default.
	FS vfs.FS
	// Guard, when set, is asked by every group-commit round before its
	// write and after its sync whether this process may still write the
	// log; an error fails the log for good, so that nothing more is
	// written or acknowledged (another process claimed the directory).
	Guard func() error

	// frameLimit replaces MaxFrame, so tests reach multi-frame records
	// with small payloads.
	frameLimit int
	// syncHook replaces every fdatasync of a segment and fsync of the
	// directory. It is the package's one fault injection: tests make
	// syncs fail or wait with it.
	syncHook func(f vfs.File, dir bool) error
	// allocHook replaces the preallocation of a segment (File.Preallocate),
	// so tests of the zero tail do not depend on the filesystem they run
	// on.
	allocHook func(f vfs.File, size int64) error
}

// Log is an open write-ahead log. Its methods are safe for concurrent use.
type Log struct {
	dir      string
	fs       vfs.FS
	segSize  int64
	limit    int
	logger   *slog.Logger
	syncHook func(f vfs.File, dir bool) error
	prealloc bool
	alloc    func(f vfs.File, size int64) error
	guard    func() error
	dec      *zstd.Decoder // DecodeAll is safe for concurrent use

	syncs   atomic.Int64          // fdatasync calls on segments, for tests and benchmarks
	durable atomic.Uint64         // LSN up to which the log is synced
	failure atomic.Pointer[error] // the failed fsync, once there is one

	// filesMu is held shared while Replay reads segment files and
	// exclusively while TrimBefore or Reset deletes them. Ordered before
	// syncMu.
	filesMu sync.RWMutex
	// syncMu is held across a group-commit round's write and fdatasync, and by
	// whatever replaces or closes the active segment (roll, Reset,
	// Close), so the round's file stays open. Ordered before mu.
	syncMu sync.Mutex
	// syncer is the group commit's state (sync.go): the flusher's
	// rounds and the committers waiting for them. Its mutex is taken
	// alone or inside syncMu, never around syncMu or mu.
	syncer struct {
		sync.Mutex
		running *syncRound // being synced: what it covers is known
		next    *syncRound // the round after it, for the Syncs it does not cover
		busy    bool       // a committer or the flusher owns the rounds: it syncs next before it lets go
		closed  bool       // Close stopped the flusher
		kick    chan struct{}
		stop    chan struct{}
		exited  chan struct{}
	}

	mu struct {
		// Mutex guards the fields below and serializes appends.
		sync.Mutex
		segs   []segment // oldest first; the last is the active segment
		active vfs.File  // the last segment, open for writing
		end    LSN
		// written is the LSN up to which the active segment's file
		// holds the log; buf holds the frames from written to end.
		written LSN
		enc     *zstd.Encoder
		buf     []byte
		closed  bool
	}
}

// Open opens the log in dir, creating dir when missing. It checks every
// frame of every segment, truncates a torn tail (see the package
// comment), returns *CorruptError for a bad record followed by a valid
// one, and makes the whole log durable before returning.
func Open(dir string, o Options) (*Log, error) {
	l := &Log{dir: dir, fs: o.FS, segSize: o.SegmentSize, limit: o.frameLimit, logger: o.Logger, syncHook: o.syncHook, prealloc: o.Preallocate, alloc: o.allocHook, guard: o.Guard}
	if l.fs == nil {
		l.fs = vfs.Default
	}
	if l.segSize <= 0 {
		l.segSize = DefaultSegmentSize
	}
	if l.limit <= 0 {
		l.limit = MaxFrame
	}
	if l.logger == nil {
		l.logger = slog.Default()
	}
	if l.syncHook == nil {
		l.syncHook = realSync
	}
	if l.alloc == nil {
		l.alloc = vfs.File.Preallocate
	}
	if err := l.makeDir(); err != nil {
		return nil, err
	}
	segs, err := listSegments(l.fs, dir)
	if err != nil {
		return nil, err
	}
	var end LSN
	var active vfs.File
	if len(segs) == 0 {
		s, f, err := createSegment(l.fs, dir, o.StartAt)
		if err != nil {
			return nil, err
		}
		if err := l.syncDir(dir); err != nil {
			f.Close()
			return nil, err
		}
		segs, active, end = []segment{s}, f, o.StartAt
		l.preallocate(f, s.base, end)
	} else {
		if segs, end, err = l.recover(segs); err != nil {
			return nil, err
		}
		last := segs[len(segs)-1]
		if active, err = l.fs.OpenFile(last.path, os.O_RDWR); err != nil {
			return nil, fmt.Errorf("cannot open WAL segment %s: %w", last.path, err)
		}
		// The previous process may have died with unsynced appends in the
		// page cache. Syncing now keeps Durable() == End() honest.
		if err := l.syncFile(active); err != nil {
			active.Close()
			return nil, err
		}
		l.preallocate(active, last.base, end)
	}
	l.mu.segs, l.mu.active, l.mu.end, l.mu.written = segs, active, end, end
	l.mu.enc = newEncoder()
	l.dec = newDecoder(l.limit)
	l.durable.Store(uint64(end))
	l.startFlusher()
	return l, nil
}

// makeDir creates the log's directory if missing, and makes its entry in
// the parent durable (and the parents' of any directory it creates).
func (l *Log) makeDir() error {
	if _, err := vfs.MkdirAllSync(l.fs, l.dir); err != nil {
		return fmt.Errorf("cannot create the WAL directory: %w", err)
	}
	return nil
}

// Append adds a record and returns its end LSN (its start is the End()
// before the call). The record is buffered, not written: the next Sync
// writes and syncs everything appended before it, in one write (group
// commit of the writes as well as of the syncs), so pass the end to Sync
// before acknowledging the record. Records of any size are accepted; a
// large one goes out in writes of about a frame limit as it is framed.
// A failed write fails the log, as a failed sync does: the records
// appended before it are lost to their committers.
func (l *Log) Append(payload []byte) (LSN, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usableLocked(); err != nil {
		return 0, err
	}
	if l.activeSizeLocked() >= l.segSize {
		if err := l.rollLocked(); err != nil {
			return 0, err
		}
	}
	pos := l.mu.end
	for i := 0; i == 0 || len(payload) > 0; i++ {
		chunk := payload[:min(len(payload), l.limit)]
		payload = payload[len(chunk):]
		var flags byte
		if i == 0 {
			flags |= flagFirst
		}
		if len(payload) == 0 {
			flags |= flagLast
		}
		n := len(l.mu.buf)
		l.mu.buf = appendFrame(l.mu.buf, l.mu.enc, chunk, flags, pos)
		pos += LSN(len(l.mu.buf) - n)
		l.mu.end = pos
		if len(l.mu.buf) >= l.limit {
			if err := l.writeLocked(); err != nil {
				return 0, err
			}
		}
	}
	return pos, nil
}

// writeLocked writes the buffered frames to the active segment. Its
// failure fails the log: the frames may belong to several committers.
func (l *Log) writeLocked() error {
	if len(l.mu.buf) == 0 {
		return nil
	}
	seg := l.mu.segs[len(l.mu.segs)-1]
	if _, err := l.mu.active.WriteAt(l.mu.buf, int64(l.mu.written-seg.base)); err != nil {
		return l.fail(fmt.Errorf("cannot write to WAL segment %s: %w", seg.path, err))
	}
	l.mu.written = l.mu.end
	// Keep the buffer for the next records unless a big one grew it: a
	// single large import commit must not pin 16 MiB for the process.
	if cap(l.mu.buf) <= keepBuffer {
		l.mu.buf = l.mu.buf[:0]
	} else {
		l.mu.buf = nil
	}
	return nil
}

// activeSizeLocked is the size of the active segment.
func (l *Log) activeSizeLocked() int64 {
	return int64(l.mu.end - l.mu.segs[len(l.mu.segs)-1].base)
}

// rollLocked starts a new active segment at the end. Called and returning
// with mu held; it lets go of mu to take syncMu first (lock order), so it
// checks again that the roll is still due.
func (l *Log) rollLocked() error {
	l.mu.Unlock()
	l.syncMu.Lock()
	l.mu.Lock()
	defer l.syncMu.Unlock()
	if err := l.usableLocked(); err != nil {
		return err
	}
	if l.activeSizeLocked() < l.segSize {
		return nil // another appender rolled while mu was free
	}
	// The old segment is made durable before the new one exists, so only
	// the last segment can ever hold a torn write (see recover).
	if err := l.writeLocked(); err != nil {
		return err
	}
	old := l.mu.segs[len(l.mu.segs)-1]
	if err := l.cutPreallocated(l.mu.active, old.base, l.mu.end); err != nil {
		return l.fail(err)
	}
	if err := l.syncFile(l.mu.active); err != nil {
		return l.fail(err)
	}
	l.durable.Store(uint64(l.mu.end))
	s, f, err := createSegment(l.fs, l.dir, l.mu.end)
	if err != nil {
		return err
	}
	l.preallocate(f, s.base, s.base)
	if err := l.syncDir(l.dir); err != nil {
		f.Close()
		return l.fail(err)
	}
	l.mu.active.Close()
	l.mu.segs = append(l.mu.segs, s)
	l.mu.active = f
	return nil
}

// usableLocked returns the error that ends the log, if any.
func (l *Log) usableLocked() error {
	if l.mu.closed {
		return ErrClosed
	}
	return l.failed()
}

// End returns the LSN after the last appended record.
func (l *Log) End() LSN {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.end
}

// Durable returns the LSN up to which the log is synced.
func (l *Log) Durable() LSN { return LSN(l.durable.Load()) }

// Start returns the first LSN still in the log.
func (l *Log) Start() LSN {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.segs[0].base
}

// Size returns the bytes of the log, End()−Start(): what its segment
// files hold once it is synced (appends are buffered until a Sync).
func (l *Log) Size() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(l.mu.end - l.mu.segs[0].base)
}

// Close syncs the log and closes it. A failed log is closed without a
// sync and its failure is returned.
func (l *Log) Close() error {
	if !l.stopFlusher() {
		return ErrClosed
	}
	defer l.finishClose()
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mu.closed {
		return ErrClosed
	}
	l.mu.closed = true
	err := l.failed()
	if err == nil {
		err = l.writeLocked()
	}
	if err == nil {
		last := l.mu.segs[len(l.mu.segs)-1]
		err = l.cutPreallocated(l.mu.active, last.base, l.mu.end)
	}
	if err == nil {
		if err = l.syncFile(l.mu.active); err != nil {
			err = l.fail(err)
		} else {
			l.durable.Store(uint64(l.mu.end))
		}
	}
	if cerr := l.mu.active.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("cannot close WAL segment %s: %w", l.mu.active.Name(), cerr)
	}
	l.mu.enc.Close()
	return err
}
