// Package storage owns Quiver's in-memory property graph: node ids and
// the live set, label bitmaps, property columns in Arrow chunks, the
// relationship table, per-type forward/backward CSR adjacency, and the
// MVCC versions that make all of it readable without locks.
//
// # Model
//
// A Store publishes immutable versions (*Snapshot) through an atomic
// pointer. Every commit builds the next version by copying only what it
// touched: the chunks it wrote, the leaves of the group tables that name
// them (a leaf names 64 chunks; the slice of leaves is 1/131072 of the
// ids, grouptable.go), the containers of the bitmaps it changed (a
// container holds 2^16 ids; the table of containers is copied, labels.go;
// a bitmap of at most four containers is copied whole),
// and the adjacency of the types it added relationships to (csr Apply,
// itself copy-on-write). What a commit copies does not grow with the
// graph but for those two tables, 8 and 19 bytes per 128k and 64k ids.
// Readers hold a *Snapshot and never block or are blocked; a Snapshot
// answers the same forever.
//
//	Store ── cur ──▶ Snapshot ts=7 ──shares──▶ chunks, bitmaps, CSRs
//	                  ▲                          ▲
//	        Tx (writing, owns its copies) ───────┘  becomes ts=8 at Commit
//
// Writes go through a Tx. Its op list (Tx.Ops) is exactly a logical WAL
// record (record.go); one replay path (replay.go) serves recovery,
// savepoints and rebasing. A pessimistic Tx holds the commit lock from
// its first write to its end; an optimistic one (BeginOptimistic) takes
// it only to commit, where its writes are checked against the commits it
// did not see (conflict.go: first committer wins, 40001) and replayed
// onto the latest version. The commit path (commit.go) appends the record
// to the Log under the lock, syncs outside it (group commit) and
// publishes the version to readers once it is durable.
//
// Ids are dense: node and relationship ids come from atomic counters and
// are never reused, so ids taken by a rolled-back transaction stay holes.
// Node ids are limited to 2^32 (32-bit roaring bitmaps). A deleted node
// leaves the live bitmap (its labels and properties are cleared); a
// deleted relationship leaves a tombstone in the relationship table and
// is removed from the adjacency overlay (csr Apply deletes). Ids are not
// reused, so no snapshot can see an id change its meaning.
//
// Updates (update.go): set/remove properties, add/remove labels, delete
// relationship, delete node (refused with 23000 while it has
// relationships; detach deletes them first). Each op kind has one apply
// function (applySetNodeProps, applySetRelProps, applyAddLabels,
// applyRemoveLabels, applyDeleteRel, applyDeleteNode; creates:
// createNodeLocked, createRelLocked).
//
// Node property indexes (index*.go) are versioned like everything else:
// a snapshot holds its Schema and, per index, an immutable base (a sorted
// run for BTREE, a hash map for HASH) plus a small sorted delta; a Tx
// logs index changes through one hook (work.indexNodeLocked, called by
// maintainNodeLocked around an op's apply) and merges them before reads
// and at commit, where UNIQUE and EXISTS constraints are checked before
// anything is published (schema.go).
//
// Property values are nil (no property), bool, int64, float64, string,
// []vector.Value and map[string]vector.Value; lists and maps are deep
// copied on write and have column type Any. Strings are stored plain in
// memory; the base format dictionary-encodes low-cardinality chunks.
//
// Bases (base_*.go, docs/storage-format.md): SaveBase writes the latest
// version to a directory (zstd column chunks, roaring bitmaps, CSR
// blocks, the catalog, a manifest written last); OpenBase reads one back
// into a new Store. BulkLoad (bulk.go) builds a first version directly
// from typed columns for `quiver import`.
//
// System records (system.go) are a small key-value space of the server's
// own state (users, API keys) kept in each version beside the graph: set
// by OpSetSystem ops of ordinary commits, so logged, replayed and
// checkpointed (system.kv) like data, but never read by queries, conflict
// detection or the change feed.
//
// storage must not parse queries, plan, or know about frontends; it
// depends on vector, csr, catalog and errs only; the write-ahead log
// (package wal) is reached through the Log interface, and checkpoints
// (checkpoint.go) are bases written from the latest durable version.
package storage
