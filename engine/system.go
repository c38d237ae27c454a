package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// SystemRecord is one entry of the database's system records: a small
// durable key-value space for the server's own state (users, roles, API
// keys, refresh tokens), logged through the WAL like data and kept in
// checkpoints, but invisible to queries and change feeds.
type SystemRecord struct {
	Key   string
	Value []byte // nil in SystemPut deletes the key
}

// Limits of SystemPut; beyond them it fails with 22023 and writes nothing.
const (
	// MaxSystemKeyBytes bounds a key (keys are 1 to this many bytes).
	MaxSystemKeyBytes = storage.MaxSystemKeyBytes
	// MaxSystemValueBytes bounds a value.
	MaxSystemValueBytes = storage.MaxSystemValueBytes
	// MaxSystemRecordsPerPut bounds the records of one SystemPut.
	MaxSystemRecordsPerPut = 10_000
	// MaxSystemPutBytes bounds the keys and values of one SystemPut
	// together: a put is one WAL record and is held in memory whole.
	MaxSystemPutBytes = 64 << 20
)

// SystemGet returns a copy of the value stored under key, as of the
// latest durable commit. It takes no lock and never waits for a writer.
func (db *DB) SystemGet(key string) ([]byte, bool) {
	return db.store.Snapshot().SystemGet(key)
}

// SystemScan returns the records whose key starts with prefix, sorted by
// key; the values are copies. It reads one version (the latest durable
// one), so the records are consistent with each other.
func (db *DB) SystemScan(prefix string) []SystemRecord {
	var out []SystemRecord
	db.store.Snapshot().SystemScan(prefix, func(k string, v []byte) {
		out = append(out, SystemRecord{Key: k, Value: append(make([]byte, 0, len(v)), v...)})
	})
	return out
}

// SystemPut stores the records atomically, as one commit, and returns
// once it is as durable as the database's durability mode makes data
// commits.
//
// A nil Value deletes its key (deleting an absent key is no error); when
// a key appears more than once, the last record wins. An empty put does
// nothing. Invalid input (an empty key or one over MaxSystemKeyBytes, a
// value over MaxSystemValueBytes, more than MaxSystemRecordsPerPut
// records or MaxSystemPutBytes bytes) is a 22023 error and writes
// nothing. ctx bounds the wait for the writer lock (a long write
// statement holds it): when it ends first, nothing is written; once the
// commit is logged, SystemPut waits for its sync whatever ctx says, so
// that its answer is the commit's outcome.
func (db *DB) SystemPut(ctx context.Context, recs []SystemRecord) error {
	if len(recs) == 0 {
		return nil
	}
	if err := checkSystemPut(recs); err != nil {
		return err
	}
	if db.closed.Load() {
		return errs.New(errs.CodeUnavailable, errs.CatUnavailable, "cannot store system records: the database is closed")
	}
	tx, err := db.store.BeginWriteContext(ctx)
	if err != nil {
		return systemPutStopped(ctx, err)
	}
	for _, r := range recs {
		if err := tx.SetSystem(r.Key, r.Value); err != nil {
			tx.Rollback()
			return err
		}
	}
	if _, err := tx.Commit(); err != nil {
		return fmt.Errorf("cannot commit system records: %w", err)
	}
	return nil
}

// checkSystemPut validates a put whole before it takes the writer lock.
func checkSystemPut(recs []SystemRecord) error {
	if len(recs) > MaxSystemRecordsPerPut {
		return errs.DataCode(errs.CodeInvalidParam, "cannot store %d system records at once: at most %d are allowed", len(recs), MaxSystemRecordsPerPut)
	}
	total := 0
	for i, r := range recs {
		if err := storage.CheckSystemRecord(r.Key, r.Value); err != nil {
			return errs.Wrap(errs.CodeInvalidParam, errs.CatData, err, fmt.Sprintf("cannot store system record %d of %d", i+1, len(recs)))
		}
		if total += len(r.Key) + len(r.Value); total > MaxSystemPutBytes {
			return errs.DataCode(errs.CodeInvalidParam, "cannot store these system records at once: they pass %d bytes", MaxSystemPutBytes)
		}
	}
	return nil
}

// systemPutStopped turns the error of waiting for the writer lock into an
// engine error: ctx's end (deadline or cancellation), or the store's own.
func systemPutStopped(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errs.Timeout("cannot store system records: the deadline passed while waiting for the writer lock")
	case errors.Is(err, context.Canceled):
		return errs.Wrap(errs.CodeTransaction, errs.CatTransaction, context.Cause(ctx), "cannot store system records: cancelled while waiting for the writer lock")
	}
	return err
}
