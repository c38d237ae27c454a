// Package cluster replicates a Quiver database over Raft
// (github.com/hashicorp/raft): every committed transaction is one log
// entry carrying the engine's WAL record, followers apply the entries in
// log order through the engine's recovery path, and a commit is
// acknowledged once a quorum holds it durably (docs/replication.md).
//
// It owns raft's durable log (LogStore: append-only segment files of
// our own; StableStore: term and vote; SnapshotStore: raft's snapshots,
// all three on the data directory's filesystem, so encrypted at rest
// with it), the state machine that applies
// entries to the engine, membership and leader routing, and bookmarks
// (a commit's raft index) with the waits they allow. It
// implements the engine's replication hook (engine.Replication); the
// engine never imports it. Protocol concerns (HTTP redirects, wire
// errors, status) belong to the frontends.
package cluster
