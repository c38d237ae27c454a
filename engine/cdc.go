package engine

import (
	"fmt"
	"time"

	"github.com/quiverdb/quiver/engine/changes"
	"github.com/quiverdb/quiver/engine/durable"
	"github.com/quiverdb/quiver/engine/storage"
)

// Change capture (docs/cdc.md): with a retention set, every commit's
// changes go to a change log (engine/changes/log.go) that cdc.changes
// reads and change feeds resume from.

// CDCRetention bounds the change log: by age, by size, or both; zero is
// no change log.
type CDCRetention = changes.Retention

// ChangePosition places a change in commit order (changes.Position);
// its String is the opaque token users see.
type ChangePosition = changes.Position

// ParseCDCRetention reads --cdc-retention: "24h", "7d", "512MB", "10GB",
// "7d,10GiB", or "off".
func ParseCDCRetention(s string) (CDCRetention, error) { return changes.ParseRetention(s) }

// ParseChangePosition reads a position token (22023 when malformed).
func ParseChangePosition(tok string) (ChangePosition, error) { return changes.ParsePosition(tok) }

// Waits for the change log to record the commits before a checkpoint.
const checkpointFlushTimeout = 10 * time.Second

// openChangeLog opens the change log when change capture is on.
func (db *DB) openChangeLog() (*changes.Log, error) {
	if !db.opts.CDCRetention.On() {
		return nil, nil
	}
	l, err := changes.OpenLog(db.fs, db.dir, db.opts.CDCRetention)
	if err != nil {
		return nil, fmt.Errorf("cannot open the change log: %w", err)
	}
	return l, nil
}

// watchRecovery makes recovery hand the change log the commits it has
// not recorded, and checkpoints wait for it to record what it has
// queued.
func (db *DB) watchRecovery(cfg *durable.Config, l *changes.Log) {
	if l == nil {
		return
	}
	// Only a log that reaches the checkpoint can continue from the
	// records after it; one behind it (change capture was off meanwhile)
	// has a gap anyway, and replaying record by record would only slow
	// the start.
	if from, ok := l.CatchUp(); ok && from >= db.store.Snapshot().TS() {
		cfg.RecoverFrom = from
		cfg.RecoverSink = func(rec *storage.CommitRecord) { db.changes.Record(l, rec) }
	}
	cfg.BeforeCheckpoint = func() { db.changes.Flush(checkpointFlushTimeout) }
}

// startChangeLog checks the log against the recovered store and starts
// recording.
func (db *DB) startChangeLog(l *changes.Log) {
	if l == nil {
		return
	}
	l.Reconcile(db.store.Snapshot().TS(), db.opts.Replication != nil)
	if c, ok := db.dur.(*durable.Checkpoints); ok {
		c.SetBeforeCheckpoint(func() { db.changes.Flush(checkpointFlushTimeout) })
	}
	db.changes.SetLog(l)
}

// ChangePositions returns the oldest position the change log keeps
// (cdc.earliest) and the current one (cdc.current); ok is false when
// change capture is off.
func (db *DB) ChangePositions() (earliest, current ChangePosition, ok bool) {
	l := db.changes.Log()
	if l == nil {
		return ChangePosition{}, ChangePosition{}, false
	}
	earliest, current = l.Bounds()
	return earliest, current, true
}
