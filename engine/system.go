package engine

import (
	"context"

	"github.com/quiverdb/quiver/engine/errs"
)

// SystemRecord is one entry of the database's system records: a small
// durable key-value space for the server's own state (users, roles, API
// keys, refresh tokens), logged through the WAL like data and kept in
// checkpoints, but invisible to queries and change feeds.
type SystemRecord struct {
	Key   string
	Value []byte // nil in SystemPut deletes the key
}

// SystemGet returns the value stored under key.
func (db *DB) SystemGet(key string) ([]byte, bool) {
	return nil, false // IMPLEMENTED BY THE STORAGE HELPER
}

// SystemScan returns the records whose key starts with prefix, sorted by
// key.
func (db *DB) SystemScan(prefix string) []SystemRecord {
	return nil // IMPLEMENTED BY THE STORAGE HELPER
}

// SystemPut stores the records atomically, as one commit, and returns
// once it is as durable as the database's durability mode makes data
// commits.
func (db *DB) SystemPut(ctx context.Context, recs []SystemRecord) error {
	return errs.NotSupported("system records are not implemented yet") // IMPLEMENTED BY THE STORAGE HELPER
}
