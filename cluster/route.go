package cluster

import (
	"context"

	"github.com/quiverdb/quiver/engine/storage"
)

// Routing for the frontends: what a member that does not lead answers,
// as the engine's error, so that every protocol reports it alike.

// ReadIndex is LinearizableBarrier for a frontend: on a member that does
// not lead it fails with the engine's 25006 error, whose cause
// (errors.As) is a *storage.NotLeaderError naming the leader.
func (n *Node) ReadIndex(ctx context.Context) error {
	_, err := n.LinearizableBarrier(ctx)
	if e := storage.ReplicationError(err); e != nil {
		return e
	}
	return err
}

// NotLeader is the engine's 25006 error naming the current leader, for
// a request refused before it reached the engine (a cluster procedure on
// a follower).
func (n *Node) NotLeader() error {
	id, addr := n.Leader()
	return storage.ReplicationError(&storage.NotLeaderError{LeaderID: id, LeaderAddress: addr})
}

// CommitIndex is the highest log index this member knows is committed.
func (n *Node) CommitIndex() uint64 { return n.raft.CommitIndex() }

// replicationError is storage.ReplicationError: the engine's 25006 or
// 08007 error for a replicated log's refusal, nil for another error.
func replicationError(err error) error { return storage.ReplicationError(err) }
