// Package durable owns what makes a database with a data directory
// durable: the directory itself, created, locked for one process and
// restricted to its owner (Dir, dir.go), and the write-ahead log with its
// checkpointer (Log, log.go): every commit is synced to the log before it
// is acknowledged, and checkpoints fold the log into new bases
// (docs/durability.md).
package durable

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
	"github.com/quiverdb/quiver/engine/storage/wal"
)

// Durability (docs/durability.md): every commit is a record in the
// write-ahead log under D/wal, synced before the commit is acknowledged;
// a checkpoint writes the latest durable version as a new base (manifest
// switch) and trims the log before it; Open loads the manifest's base and
// replays the log after its position.

// WALDirName is the write-ahead log's directory inside a data directory.
const WALDirName = storage.WALDirName

// Checkpoint triggers (Config overrides them).
const (
	// DefaultCheckpointInterval is how often a checkpoint runs when the
	// log has grown since the last one.
	DefaultCheckpointInterval = 5 * time.Minute
	// DefaultCheckpointWALBytes is the log growth since the last
	// checkpoint that starts one at once.
	DefaultCheckpointWALBytes = 256 << 20
)

// Config is what a database opens its log with (engine.Options and its
// Dir).
type Config struct {
	Store  *storage.Store // holding the manifest's checkpoint
	FS     vfs.FS
	Dir    string
	Writer uint64 // this process's writer id (Dir.Writer)
	Logger *slog.Logger
	// Progress logs a long checkpoint's progress.
	Progress progress.Log
	// SegmentSize is the log's segment size (zero: the log's default).
	SegmentSize int64
	// CheckpointInterval is how often a checkpoint runs if anything
	// committed (zero: DefaultCheckpointInterval, negative: never on a
	// timer); CheckpointWALBytes the log growth that starts one at once
	// (zero: DefaultCheckpointWALBytes).
	CheckpointInterval time.Duration
	CheckpointWALBytes int64
	// RecoverSink, when set, receives each replayed commit after
	// timestamp RecoverFrom (storage.Recovery.WatchFrom): the change log
	// catches up on what a crash kept it from recording.
	RecoverSink storage.CommitSink
	RecoverFrom uint64
	// BeforeCheckpoint runs before each checkpoint: a checkpoint ends
	// replay's reach, so the change log records what it has queued first.
	BeforeCheckpoint func()
}

// Log is the write-ahead log and the checkpointer of a database with a
// data directory.
type Log struct {
	c   Config
	log *wal.Log
	// mu makes checkpoints one at a time.
	mu sync.Mutex
	// last is the log position of the last checkpoint.
	last      atomic.Uint64
	threshold uint64
	kick      chan struct{}
	stop      chan struct{}
	done      chan struct{}
	// checkpoints counts the checkpoints written since open.
	checkpoints atomic.Int64
	// manifest stamps the manifest this process read at open or wrote
	// last: a checkpoint switches the manifest only if it is still that
	// one (storage/writer.go). Guarded by mu.
	manifest storage.ManifestStamp
}

// Open opens the log in c.Dir, replays it onto c.Store (which holds the
// manifest's checkpoint) and attaches it, then starts the background
// checkpointer.
func Open(c Config) (*Log, error) {
	store, dir := c.Store, c.Dir
	ckpt := store.LSN()
	stamp, err := storage.ReadManifestStamp(c.FS, dir)
	if err != nil {
		return nil, err
	}
	l, err := wal.Open(filepath.Join(dir, WALDirName), wal.Options{StartAt: wal.LSN(ckpt), Logger: c.Logger, Preallocate: true,
		SegmentSize: c.SegmentSize, FS: c.FS,
		Guard: storage.OwnerCheck(c.FS, dir, c.Writer)})
	if err != nil {
		var ce *wal.CorruptError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("the write-ahead log is corrupt, so acknowledged commits after it cannot be recovered; the server does not start (docs/durability.md, \"Corruption\"): %w", err)
		}
		return nil, fmt.Errorf("cannot open the write-ahead log: %w", err)
	}
	if uint64(l.Start()) > ckpt || uint64(l.End()) < ckpt {
		l.Close()
		return nil, fmt.Errorf("the write-ahead log in %s holds positions %d to %d, which do not include the checkpoint's position %d: log segments are missing, so commits may be lost; the server does not start",
			filepath.Join(dir, WALDirName), l.Start(), l.End(), ckpt)
	}
	start, records := time.Now(), 0
	rc := store.Recover()
	if c.RecoverSink != nil {
		rc.WatchFrom(c.RecoverFrom, c.RecoverSink)
	}
	err = l.Replay(wal.LSN(ckpt), func(at, end wal.LSN, rec []byte) error {
		records++
		if err := rc.Apply(rec, uint64(end)); err != nil {
			return fmt.Errorf("the log record at position %d does not apply: %w", at, err)
		}
		return nil
	})
	if err != nil {
		l.Close()
		var other *storage.OtherWriterError
		if errors.As(err, &other) {
			return nil, fmt.Errorf("the write-ahead log holds the commits of two servers; the server does not start: %w", err)
		}
		return nil, fmt.Errorf("cannot recover from the write-ahead log: %w", err)
	}
	if err := rc.Finish(); err != nil {
		l.Close()
		return nil, fmt.Errorf("cannot recover from the write-ahead log: %w", err)
	}
	if records > 0 {
		s := store.Snapshot()
		c.Logger.Info("recovered commits from the write-ahead log", "records", records, "from_lsn", ckpt,
			"to_lsn", store.LSN(), "nodes", s.NodeCount(), "relationships", s.RelCount(), "took", time.Since(start).Round(time.Millisecond))
	}
	d := &Log{c: c, log: l, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		manifest: stamp}
	store.StartWriter(c.Writer)
	d.last.Store(ckpt)
	d.threshold = uint64(c.CheckpointWALBytes)
	if d.threshold == 0 {
		d.threshold = DefaultCheckpointWALBytes
	}
	store.SetLog(&walLog{d: d})
	go d.run(c.CheckpointInterval)
	return d, nil
}

// walLog is the store's Log: the WAL, plus the size trigger of the
// checkpointer.
type walLog struct{ d *Log }

func (w *walLog) Append(rec []byte) (uint64, error) {
	lsn, err := w.d.log.Append(rec)
	if err == nil && uint64(lsn)-w.d.last.Load() >= w.d.threshold {
		select {
		case w.d.kick <- struct{}{}:
		default:
		}
	}
	return uint64(lsn), err
}

func (w *walLog) Sync(lsn uint64) error { return w.d.log.Sync(wal.LSN(lsn)) }

// run is the background checkpointer: on a timer, and when the log grew
// past the threshold.
func (d *Log) run(interval time.Duration) {
	defer close(d.done)
	if interval == 0 {
		interval = DefaultCheckpointInterval
	}
	var tick <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		reason := "timer"
		select {
		case <-d.stop:
			return
		case <-tick:
		case <-d.kick:
			reason = "log size"
		}
		d.Checkpoint(reason) // a failure is logged there
	}
}

// Checkpoint writes a checkpoint unless nothing committed since the last
// one, and returns its log position and the bytes written. reason names
// what asked for it in the log.
func (d *Log) Checkpoint(reason string) (uint64, int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	store := d.c.Store
	if store.LSN() == d.last.Load() {
		return d.last.Load(), 0, nil
	}
	if d.c.BeforeCheckpoint != nil {
		d.c.BeforeCheckpoint()
	}
	start := time.Now()
	w := d.c.Progress.Start("checkpoint", "reason", reason)
	lsn, n, stamp, err := uint64(0), int64(0), storage.ManifestStamp{}, storage.CheckDataDirOwner(d.c.FS, d.c.Dir, d.c.Writer)
	if err == nil {
		lsn, n, stamp, err = store.Checkpoint(d.c.FS, d.c.Dir, d.manifest, w.Tracker())
	}
	w.Quiet() // the lines below end it, with the time it took
	if err != nil {
		var other *storage.OtherWriterError
		if errors.As(err, &other) {
			// Another server checkpoints into this directory: whatever
			// either commits now, one of them overwrites. Stop here.
			d.c.Logger.Error("another server writes to this data directory: this one takes no more commits", "reason", reason, "err", err)
			return 0, 0, store.StopCommits(err)
		}
		d.c.Logger.Error("checkpoint failed; the write-ahead log keeps every commit meanwhile", "reason", reason, "err", err)
		if vfs.IsDiskFull(err) {
			return 0, 0, errs.DiskFull(err, "cannot write a checkpoint: the disk holding the data directory is full (no space left on device); "+
				"the write-ahead log keeps every commit: free space, then checkpoint again")
		}
		return 0, 0, fmt.Errorf("cannot write a checkpoint: %w", err)
	}
	d.manifest = stamp
	d.last.Store(lsn)
	d.checkpoints.Add(1)
	if err := d.log.TrimBefore(wal.LSN(lsn)); err != nil {
		d.c.Logger.Warn("cannot trim the write-ahead log after a checkpoint", "err", err)
	}
	d.c.Logger.Info("wrote a checkpoint", "reason", reason, "lsn", lsn, "bytes", n, "took", time.Since(start).Round(time.Millisecond))
	return lsn, n, nil
}

// Close stops the checkpointer, writes a last checkpoint (so the next
// open replays nothing) and closes the log.
func (d *Log) Close() error {
	close(d.stop)
	<-d.done
	_, _, cerr := d.Checkpoint("shutdown")
	return errors.Join(cerr, d.log.Close())
}

// Abandon stops the checkpointer and closes the log's files as they are,
// as a killed process leaves them: no last checkpoint. Every
// acknowledged commit is already synced to the log.
func (d *Log) Abandon() {
	close(d.stop)
	<-d.done
	d.log.Close()
}

// Stats describes the log and the checkpoints.
type Stats struct {
	// Enabled is false for a database without a data directory.
	Enabled bool
	// WALLSN is the log position of the latest durable commit.
	WALLSN uint64
	// LastCheckpointLSN is where the last checkpoint holds everything up to.
	LastCheckpointLSN uint64
	// WALBytes is the size of the log's segment files.
	WALBytes int64
	// Checkpoints counts the checkpoints written since open.
	Checkpoints int64
}

// Stats reports the state of the log and the checkpoints.
func (d *Log) Stats() Stats {
	return Stats{Enabled: true, WALLSN: d.c.Store.LSN(), LastCheckpointLSN: d.last.Load(),
		WALBytes: d.log.Size(), Checkpoints: d.checkpoints.Load()}
}

var _ storage.Log = (*walLog)(nil)
