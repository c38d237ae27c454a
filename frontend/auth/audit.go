package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// The audit trail (docs/security.md, "Audit trail"): every security event
// is appended to <data-dir>/audit/audit.log and synced before Audit
// returns, and the newest MaxRecent events are kept in memory for
// audit.get_recent_events. The file format is in audit_format.go, the
// writer (group commit, rotation, disk failures) in audit_writer.go,
// reading the trail back at open in audit_recover.go.

// MaxRecent is how many of the newest events the trail keeps in memory,
// and the largest count audit.get_recent_events accepts.
const MaxRecent = 10000

// DefaultAuditFileBytes is the size at which audit.log is rotated when
// AuditOptions.MaxFileBytes is zero.
const DefaultAuditFileBytes = 64 << 20

// AuditRecord is one stored event.
type AuditRecord struct {
	ID   int64     // event_id: 1, 2, 3… increasing across restarts
	Time time.Time // UTC
	engine.AuditEvent
}

// AuditOptions configure OpenAuditLog.
type AuditOptions struct {
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Logger receives recovery warnings and disk errors; nil is
	// slog.Default().
	Logger *slog.Logger
	// MaxFileBytes is the size past which audit.log is renamed to
	// audit-<first event_id>.log and a new one started; zero or less is
	// DefaultAuditFileBytes. Rotated files are kept: archiving or
	// deleting them is the operator's job.
	MaxFileBytes int64
	// FS is the filesystem of the data directory; nil is the operating
	// system's (engine.Options.FS).
	FS vfs.FS

	// For tests: the ring's size (default MaxRecent), the file sync
	// (default vfs.File.Sync), and how long Audit and Close wait for the
	// disk before giving up on an event (default auditWaitLimit).
	ringSize  int
	syncFile  func(vfs.File) error
	waitLimit time.Duration
}

// auditWaitLimit is how long Audit waits for its event to reach the disk:
// long past any healthy fsync, short enough that a hung disk does not
// hang every login with it. The event stays in memory either way.
const auditWaitLimit = 10 * time.Second

// AuditLog is the audit trail: an engine.Auditor whose Audit returns once
// the event is durable. It is safe for concurrent use.
type AuditLog struct {
	opts AuditOptions
	dir  string // <data-dir>/audit; "" keeps the trail in memory only
	log  *slog.Logger

	mu struct {
		sync.Mutex // protects the id sequence, the ring and the writer's queue
		nextID     int64
		ring       auditRing
		queue      *auditBatch // lines waiting for the writer; nil in memory-only mode
		closed     bool
	}

	kick     chan struct{} // wakes the writer; capacity 1
	finished chan struct{} // closed when the writer has ended
	w        *auditWriter  // the writer's own state, touched by it alone

	failures  atomic.Int64 // Failures
	lastWarn  atomic.Int64 // unix nanoseconds of the last failure logged
	closeOnce sync.Once
	closeErr  error
}

var _ engine.Auditor = (*AuditLog)(nil)

// OpenAuditLog opens (creating) <dir>/audit/audit.log, dir being the data
// directory, and reads its tail back: the last event_id, so that ids
// continue, and the newest events into memory. dir == "" keeps the trail
// in memory only (embedded, in-memory databases).
func OpenAuditLog(dir string, o AuditOptions) (*AuditLog, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultAuditFileBytes
	}
	if o.ringSize <= 0 || o.ringSize > MaxRecent {
		o.ringSize = MaxRecent
	}
	if o.syncFile == nil {
		o.syncFile = vfs.File.Sync
	}
	if o.FS == nil {
		o.FS = vfs.Default
	}
	if o.waitLimit <= 0 {
		o.waitLimit = auditWaitLimit
	}
	l := &AuditLog{opts: o, log: o.Logger.With("component", "audit")}
	l.mu.nextID = 1
	l.mu.ring.size = o.ringSize
	if dir == "" {
		return l, nil
	}
	l.dir = filepath.Join(dir, "audit")
	// MkdirAllSync syncs the parent of every directory it creates, the
	// data directory's own parent included when it creates that too.
	if _, err := vfs.MkdirAllSync(o.FS, l.dir); err != nil {
		return nil, fmt.Errorf("cannot create the audit directory: %w", err)
	}
	rec, err := recoverAuditTrail(o.FS, l.dir, o.ringSize, l.log)
	if err != nil {
		return nil, err
	}
	// audit.log may just have been created: make its entry durable
	// before the first event counts on it.
	if err := syncAuditDir(o.FS, l.dir); err != nil {
		rec.file.Close()
		return nil, err
	}
	for _, r := range rec.records {
		l.mu.ring.push(r)
	}
	l.mu.nextID = rec.lastID + 1
	l.mu.queue = &auditBatch{done: make(chan struct{})}
	l.kick = make(chan struct{}, 1)
	l.finished = make(chan struct{})
	l.w = &auditWriter{l: l, f: rec.file, size: rec.size, firstID: rec.firstID}
	go l.w.run()
	return l, nil
}

// Audit records e. It returns once the event is synced to the disk (or at
// once when the trail is in memory only); concurrent calls share one sync.
// It never fails: when the disk does, the event is kept in memory, the
// error is logged (at most once a minute) and counted (Failures). A nil
// *AuditLog keeps nothing.
func (l *AuditLog) Audit(e engine.AuditEvent) {
	if l == nil {
		return
	}
	rec := AuditRecord{AuditEvent: auditSanitizeEvent(e)}
	l.mu.Lock()
	rec.Time = l.opts.Now().UTC() // under the lock, so that time follows event_id
	rec.ID = l.mu.nextID
	l.mu.nextID++
	l.mu.ring.push(rec)
	if l.mu.queue == nil {
		l.mu.Unlock()
		return
	}
	if l.mu.closed {
		l.mu.Unlock()
		l.fail(errors.New("the audit log is closed"), rec.ID, 1)
		return
	}
	q := l.mu.queue
	if len(q.lines) >= auditMaxQueueBytes {
		l.mu.Unlock()
		l.fail(errors.New("the audit writer is behind: its queue is full"), rec.ID, 1)
		return
	}
	q.add(&rec)
	done := q.done
	l.mu.Unlock()
	select {
	case l.kick <- struct{}{}:
	default: // the writer is already woken
	}
	t := time.NewTimer(l.opts.waitLimit)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		l.fail(fmt.Errorf("the disk did not answer within %v", l.opts.waitLimit), rec.ID, 1)
	}
}

// Recent returns the newest events, newest first: at most n, and at most
// MaxRecent.
func (l *AuditLog) Recent(n int) []AuditRecord {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.mu.ring.newest(min(n, MaxRecent))
}

// Failures counts the events that had not reached the disk when their
// Audit returned (a failed write or sync, a disk slower than the wait
// limit, a closed or overrun log).
func (l *AuditLog) Failures() int64 {
	if l == nil {
		return 0
	}
	return l.failures.Load()
}

// Close writes and syncs what is queued and closes the file. Events
// audited after Close are kept in memory only.
func (l *AuditLog) Close() error {
	if l == nil {
		return nil
	}
	l.closeOnce.Do(func() {
		l.mu.Lock()
		if l.mu.queue == nil || l.mu.closed {
			l.mu.closed = true
			l.mu.Unlock()
			return
		}
		l.mu.closed = true
		l.mu.Unlock()
		select {
		case l.kick <- struct{}{}:
		default:
		}
		t := time.NewTimer(l.opts.waitLimit)
		defer t.Stop()
		select {
		case <-l.finished:
			l.closeErr = l.w.closeErr
		case <-t.C:
			l.closeErr = fmt.Errorf("cannot close the audit log: the disk did not answer within %v", l.opts.waitLimit)
		}
	})
	return l.closeErr
}

// fail counts n events that did not reach the disk and reports err.
func (l *AuditLog) fail(err error, id int64, n int) {
	l.failures.Add(int64(n))
	l.warn(err, id)
}

// warn logs a disk problem, unless another was logged in the last minute:
// a failing disk fails every event, and the log should say so, not repeat
// it.
func (l *AuditLog) warn(err error, id int64) {
	now := time.Now().UnixNano()
	last := l.lastWarn.Load()
	if last != 0 && now-last < int64(time.Minute) {
		return
	}
	if !l.lastWarn.CompareAndSwap(last, now) {
		return
	}
	l.log.Error("the audit trail cannot write to the disk; events that fail are kept in memory only",
		"err", err, "event_id", id, "failed_events", l.failures.Load(), "dir", l.dir)
}

// auditRing keeps the newest size records: while not full, buf grows and
// holds them oldest first; once full, start is the oldest.
type auditRing struct {
	size  int
	buf   []AuditRecord
	start int
}

func (r *auditRing) push(rec AuditRecord) {
	if len(r.buf) < r.size {
		r.buf = append(r.buf, rec)
		return
	}
	r.buf[r.start] = rec
	r.start = (r.start + 1) % r.size
}

// newest copies out the newest n records, newest first.
func (r *auditRing) newest(n int) []AuditRecord {
	n = max(0, min(n, len(r.buf)))
	out := make([]AuditRecord, n)
	for i := range n {
		out[i] = r.buf[(r.start+len(r.buf)-1-i)%len(r.buf)]
	}
	return out
}
