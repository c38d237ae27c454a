// Package system owns the database's system records: a small durable
// key-value space for the server's own state (users, roles, API keys,
// refresh tokens), logged through the WAL like data and kept in
// checkpoints, but invisible to queries and change feeds. The engine
// exposes it as DB.SystemGet, SystemScan and SystemPut.
package system

import (
	"context"
	"errors"
	"fmt"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
)

// Record is one entry of the system records.
type Record struct {
	Key   string
	Value []byte // nil in Put deletes the key
}

// Limits of Put; beyond them it fails with 22023 and writes nothing.
const (
	// MaxKeyBytes bounds a key (keys are 1 to this many bytes).
	MaxKeyBytes = storage.MaxSystemKeyBytes
	// MaxValueBytes bounds a value.
	MaxValueBytes = storage.MaxSystemValueBytes
	// MaxRecordsPerPut bounds the records of one Put.
	MaxRecordsPerPut = 10_000
	// MaxPutBytes bounds the keys and values of one Put together: a put
	// is one WAL record and is held in memory whole.
	MaxPutBytes = 64 << 20
)

// Put stores the records in store atomically, as one commit, and returns
// once it is as durable as the database's durability mode makes data
// commits.
//
// A nil Value deletes its key (deleting an absent key is no error); when
// a key appears more than once, the last record wins. An empty put does
// nothing. recs must have passed Check. ctx bounds the wait for the
// writer lock (a long write statement holds it): when it ends first,
// nothing is written; once the commit is logged, Put waits for its sync
// whatever ctx says, so that its answer is the commit's outcome.
func Put(ctx context.Context, store *storage.Store, recs []Record) error {
	if len(recs) == 0 {
		return nil
	}
	tx, err := store.BeginWriteContext(ctx)
	if err != nil {
		return putStopped(ctx, err)
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

// PutIfAbsent stores recs as Put does unless store holds a record whose
// key starts with prefix, checked under the commit lock the commit is
// made under; created says whether it stored.
func PutIfAbsent(ctx context.Context, store *storage.Store, prefix string, recs []Record) (created bool, err error) {
	if len(recs) == 0 {
		return false, nil
	}
	tx, err := store.BeginWriteContext(ctx)
	if err != nil {
		return false, putStopped(ctx, err)
	}
	if tx.SystemHas(prefix) {
		tx.Rollback()
		return false, nil
	}
	for _, r := range recs {
		if err := tx.SetSystem(r.Key, r.Value); err != nil {
			tx.Rollback()
			return false, err
		}
	}
	if _, err := tx.Commit(); err != nil {
		return false, fmt.Errorf("cannot commit system records: %w", err)
	}
	return true, nil
}

// Scan returns the records of snap whose key starts with prefix, sorted
// by key; the values are copies.
func Scan(snap *storage.Snapshot, prefix string) []Record {
	var out []Record
	snap.SystemScan(prefix, func(k string, v []byte) {
		out = append(out, Record{Key: k, Value: append(make([]byte, 0, len(v)), v...)})
	})
	return out
}

// Check validates a put whole, before it takes the writer lock: an empty
// key or one over MaxKeyBytes, a value over MaxValueBytes, more than
// MaxRecordsPerPut records or MaxPutBytes bytes is a 22023 error.
func Check(recs []Record) error {
	if len(recs) > MaxRecordsPerPut {
		return errs.DataCode(errs.CodeInvalidParam, "cannot store %d system records at once: at most %d are allowed", len(recs), MaxRecordsPerPut)
	}
	total := 0
	for i, r := range recs {
		if err := storage.CheckSystemRecord(r.Key, r.Value); err != nil {
			return errs.Wrap(errs.CodeInvalidParam, errs.CatData, err, fmt.Sprintf("cannot store system record %d of %d", i+1, len(recs)))
		}
		if total += len(r.Key) + len(r.Value); total > MaxPutBytes {
			return errs.DataCode(errs.CodeInvalidParam, "cannot store these system records at once: they pass %d bytes", MaxPutBytes)
		}
	}
	return nil
}

// putStopped turns the error of waiting for the writer lock into an
// engine error: ctx's end (deadline or cancellation), or the store's own.
func putStopped(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return errs.Timeout("cannot store system records: the deadline passed while waiting for the writer lock")
	case errors.Is(err, context.Canceled):
		return errs.Wrap(errs.CodeTransaction, errs.CatTransaction, context.Cause(ctx), "cannot store system records: cancelled while waiting for the writer lock")
	}
	return err
}
