package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
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

// Checkpoint triggers (Options overrides them).
const (
	// DefaultCheckpointInterval is how often a checkpoint runs when the
	// log has grown since the last one.
	DefaultCheckpointInterval = 5 * time.Minute
	// DefaultCheckpointWALBytes is the log growth since the last
	// checkpoint that starts one at once.
	DefaultCheckpointWALBytes = 256 << 20
)

// durability is the log and the checkpointer of a database with a data
// directory.
type durability struct {
	db  *DB
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

// openDurability opens the log in dir, replays it onto store (which holds
// the manifest's checkpoint) and attaches it, then starts the background
// checkpointer.
func (db *DB) openDurability(dir string) error {
	store := db.store
	ckpt := store.LSN()
	stamp, err := storage.ReadManifestStamp(db.fs, dir)
	if err != nil {
		return err
	}
	l, err := wal.Open(filepath.Join(dir, WALDirName), wal.Options{StartAt: wal.LSN(ckpt), Logger: db.log, Preallocate: true,
		SegmentSize: db.opts.WALSegmentSize, FS: db.fs,
		Guard: storage.OwnerCheck(db.fs, dir, db.writer)})
	if err != nil {
		var ce *wal.CorruptError
		if errors.As(err, &ce) {
			return fmt.Errorf("the write-ahead log is corrupt, so acknowledged commits after it cannot be recovered; the server does not start (docs/durability.md, \"Corruption\"): %w", err)
		}
		return fmt.Errorf("cannot open the write-ahead log: %w", err)
	}
	if uint64(l.Start()) > ckpt || uint64(l.End()) < ckpt {
		l.Close()
		return fmt.Errorf("the write-ahead log in %s holds positions %d to %d, which do not include the checkpoint's position %d: log segments are missing, so commits may be lost; the server does not start",
			filepath.Join(dir, WALDirName), l.Start(), l.End(), ckpt)
	}
	start, records := time.Now(), 0
	rc := store.Recover()
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
			return fmt.Errorf("the write-ahead log holds the commits of two servers; the server does not start: %w", err)
		}
		return fmt.Errorf("cannot recover from the write-ahead log: %w", err)
	}
	if err := rc.Finish(); err != nil {
		l.Close()
		return fmt.Errorf("cannot recover from the write-ahead log: %w", err)
	}
	if records > 0 {
		s := store.Snapshot()
		db.log.Info("recovered commits from the write-ahead log", "records", records, "from_lsn", ckpt,
			"to_lsn", store.LSN(), "nodes", s.NodeCount(), "relationships", s.RelCount(), "took", time.Since(start).Round(time.Millisecond))
	}
	d := &durability{db: db, log: l, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		manifest: stamp}
	store.StartWriter(db.writer)
	d.last.Store(ckpt)
	d.threshold = uint64(db.opts.CheckpointWALBytes)
	if d.threshold == 0 {
		d.threshold = DefaultCheckpointWALBytes
	}
	store.SetLog(&walLog{d: d})
	db.dur = d
	go d.run(db.opts.CheckpointInterval)
	return nil
}

// walLog is the store's Log: the WAL, plus the size trigger of the
// checkpointer.
type walLog struct{ d *durability }

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
func (d *durability) run(interval time.Duration) {
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
		d.checkpoint(reason) // a failure is logged there
	}
}

// checkpoint writes a checkpoint unless nothing committed since the last
// one, and returns its log position and the bytes written.
func (d *durability) checkpoint(reason string) (uint64, int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	store := d.db.store
	if store.LSN() == d.last.Load() {
		return d.last.Load(), 0, nil
	}
	start := time.Now()
	w := d.db.longWork().Start("checkpoint", "reason", reason)
	lsn, n, stamp, err := uint64(0), int64(0), storage.ManifestStamp{}, storage.CheckDataDirOwner(d.db.fs, d.db.dir, d.db.writer)
	if err == nil {
		lsn, n, stamp, err = store.Checkpoint(d.db.fs, d.db.dir, d.manifest, w.Tracker())
	}
	w.Quiet() // the lines below end it, with the time it took
	if err != nil {
		var other *storage.OtherWriterError
		if errors.As(err, &other) {
			// Another server checkpoints into this directory: whatever
			// either commits now, one of them overwrites. Stop here.
			d.db.log.Error("another server writes to this data directory: this one takes no more commits", "reason", reason, "err", err)
			return 0, 0, store.StopCommits(err)
		}
		d.db.log.Error("checkpoint failed; the write-ahead log keeps every commit meanwhile", "reason", reason, "err", err)
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
		d.db.log.Warn("cannot trim the write-ahead log after a checkpoint", "err", err)
	}
	d.db.log.Info("wrote a checkpoint", "reason", reason, "lsn", lsn, "bytes", n, "took", time.Since(start).Round(time.Millisecond))
	return lsn, n, nil
}

// close stops the checkpointer, writes a last checkpoint (so the next
// open replays nothing) and closes the log.
func (d *durability) close() error {
	close(d.stop)
	<-d.done
	_, _, cerr := d.checkpoint("shutdown")
	return errors.Join(cerr, d.log.Close())
}

// Checkpoint writes a checkpoint now (the CHECKPOINT statement) and
// returns its log position.
func (db *DB) Checkpoint() (uint64, error) {
	lsn, _, err := db.checkpoint("CHECKPOINT statement")
	return lsn, err
}

func (db *DB) checkpoint(reason string) (uint64, int64, error) {
	if db.dur == nil {
		return 0, 0, errs.New(errs.CodeNotSupported, errs.CatNotSupported, "the database has no data directory: there is nothing to checkpoint to")
	}
	return db.dur.checkpoint(reason)
}

func (db *DB) checkpointStatement(ctx context.Context, start time.Time) (*Result, error) {
	if _, err := db.Checkpoint(); err != nil {
		return nil, err
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	r := db.schemaRows(nil, nil, start)
	r.summary.Write = true
	return r, nil
}

// DurabilityStats describes the log and the checkpoints.
type DurabilityStats struct {
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

// Durability reports the state of the log and the checkpoints.
func (db *DB) Durability() DurabilityStats {
	if db.dur == nil {
		return DurabilityStats{}
	}
	return DurabilityStats{Enabled: true, WALLSN: db.store.LSN(), LastCheckpointLSN: db.dur.last.Load(),
		WALBytes: db.dur.log.Size(), Checkpoints: db.dur.checkpoints.Load()}
}

var _ storage.Log = (*walLog)(nil)
