// Package catalog owns the engine's metadata: the mapping between names and
// dense ids for node labels (LabelID), relationship types (TypeID) and
// property keys (KeyID), and the descriptions of indexes and constraints
// (schema.go). Unlike names, the schema is transactional: a Schema value
// is immutable and each storage snapshot holds the one it was committed
// with, so a query sees the indexes of its snapshot.
//
// Ids are dense, start at 0 and are never reused or renamed: the name
// tables are append-only. That makes reads cheap and lock-free (a name
// lookup is a sync.Map load, an id lookup an atomic slice load) and lets
// storage index its per-label bitmaps and per-key columns by id.
//
// Creating a name is not transactional: an id Ensure'd by a transaction
// that later rolls back stays allocated (it names nothing, which is
// harmless). The WAL issue must log new names before the records that use
// them.
//
// catalog must not know about storage layout, queries or frontends; it
// imports nothing of Quiver.
package catalog
