package durable

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Checkpoints of a replicated database (package cluster): its commits
// are durable in the replicated log (raft's, under D/raft), so there is
// no write-ahead log; checkpoints still write the latest applied version
// as a new base, and its manifest's log position is the replicated log's
// index it holds everything up to. A restarted member loads it and skips
// the entries at or below that index when raft hands them again.
type Checkpoints struct {
	store  *storage.Store
	fs     vfs.FS
	dir    string
	writer uint64
	log    *slog.Logger
	// mu makes checkpoints one at a time and guards manifest.
	mu       sync.Mutex
	manifest storage.ManifestStamp
	last     atomic.Uint64
	count    atomic.Int64
	stop     chan struct{}
	done     chan struct{}
	// before runs before each checkpoint (guarded by mu): the change log
	// records what it has queued first (Config.BeforeCheckpoint).
	before func()
}

// SetBeforeCheckpoint makes f run before each checkpoint.
func (c *Checkpoints) SetBeforeCheckpoint(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.before = f
}

// OpenCheckpoints starts the checkpointer of a replicated database whose
// store holds dir's checkpoint: every interval (zero: the default, 5
// minutes; negative: never) when anything was applied since the last.
func OpenCheckpoints(store *storage.Store, fsys vfs.FS, dir string, writer uint64, log *slog.Logger, interval time.Duration) (*Checkpoints, error) {
	stamp, err := storage.ReadManifestStamp(fsys, dir)
	if err != nil {
		return nil, err
	}
	c := &Checkpoints{store: store, fs: fsys, dir: dir, writer: writer, log: log, manifest: stamp,
		stop: make(chan struct{}), done: make(chan struct{})}
	c.last.Store(store.LSN())
	if interval == 0 {
		interval = DefaultCheckpointInterval
	}
	go func() {
		defer close(c.done)
		if interval < 0 {
			<-c.stop
			return
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				c.Checkpoint("timer")
			}
		}
	}()
	return c, nil
}

// Checkpoint writes a checkpoint unless nothing was applied since the
// last one, and returns its log index and the bytes written.
func (c *Checkpoints) Checkpoint(reason string) (uint64, int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.checkpointLocked(reason)
}

// Archive writes a checkpoint of the latest applied version unless the
// last one holds it, and streams that checkpoint's files to w as a base
// archive (storage.WriteBaseArchive): a raft snapshot. No checkpoint
// replaces the base while it streams. It returns the log index the
// archive holds everything up to.
func (c *Checkpoints) Archive(w io.Writer) (uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, _, err := c.checkpointLocked("snapshot"); err != nil {
		return 0, err
	}
	stamp, err := storage.WriteBaseArchive(c.fs, c.dir, w)
	if err != nil {
		return 0, fmt.Errorf("cannot stream the checkpoint: %w", err)
	}
	return stamp.LSN, nil
}

func (c *Checkpoints) checkpointLocked(reason string) (uint64, int64, error) {
	if c.store.LSN() == c.last.Load() {
		return c.last.Load(), 0, nil
	}
	if c.before != nil {
		c.before()
	}
	start := time.Now()
	if err := storage.CheckDataDirOwner(c.fs, c.dir, c.writer); err != nil {
		return 0, 0, err
	}
	lsn, n, stamp, err := c.store.Checkpoint(c.fs, c.dir, c.manifest, nil)
	if err != nil {
		var other *storage.OtherWriterError
		if errors.As(err, &other) {
			return 0, 0, c.store.StopCommits(err)
		}
		c.log.Error("checkpoint failed; the replicated log keeps every commit meanwhile", "reason", reason, "err", err)
		return 0, 0, fmt.Errorf("cannot write a checkpoint: %w", err)
	}
	c.manifest = stamp
	c.last.Store(lsn)
	c.count.Add(1)
	c.log.Info("wrote a checkpoint", "reason", reason, "index", lsn, "bytes", n, "took", time.Since(start).Round(time.Millisecond))
	return lsn, n, nil
}

// Close stops the timer and writes a last checkpoint.
func (c *Checkpoints) Close() error {
	close(c.stop)
	<-c.done
	_, _, err := c.Checkpoint("shutdown")
	return err
}

// Abandon stops the timer without a last checkpoint, as a killed
// process leaves the directory.
func (c *Checkpoints) Abandon() {
	close(c.stop)
	<-c.done
}

// Stats describes the checkpoints (WALLSN is the applied index).
func (c *Checkpoints) Stats() Stats {
	return Stats{Enabled: true, WALLSN: c.store.LSN(), LastCheckpointLSN: c.last.Load(), Checkpoints: c.count.Load()}
}
