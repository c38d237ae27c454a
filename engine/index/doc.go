// Package index keeps the secondary indexes that are not storage's
// property indexes (FULLTEXT, VECTOR): indexes whose structure
// is a library's (bleve, an HNSW graph), maintained by the engine from
// its commits rather than inside storage's versions.
//
// Storage knows such an index only as a definition in the schema
// (catalog.IndexType.Secondary): it logs CREATE and DROP like any schema
// change and recovers the definition. The Manager here watches the
// store's durable commits (storage.Store.WatchIndexCommits), in commit
// order, and for each index:
//
//	created (a commit, or found at Open)  → POPULATING: a goroutine builds
//	                                        it from that commit's version,
//	                                        counting progress
//	populated                             → ONLINE: applies the commits
//	                                        after that version, in order
//	dropped (a commit)                    → closed
//
// Each index records the timestamp it has applied. A search at snapshot
// ts waits (cancellably) until its index applied ts, so it sees every
// commit up to its snapshot; a Kind answers exactly at ts (fulltext keeps
// versioned documents and filters by ts) and overlays a transaction's own
// writes. At Open every index is rebuilt from the recovered version: an
// index after kill -9 is therefore a fresh build by construction.
//
// A Kind (kind.go) is one index type's implementation; the engine
// registers the kinds it has (engine/index/fulltext, engine/index/vector).
package index
