package cluster

import (
	"context"
	"errors"
	"time"

	"github.com/hashicorp/raft"
)

// Bookmarks. A commit's bookmark is a raft index at or after its entry:
// the leader's DB().AppliedIndex() read once the commit returned (or
// Node.Bookmark). A member that has applied that index holds the commit,
// so a client that sends its last bookmark with a read on any member
// reads its own writes (WaitApplied), as Neo4j's bookmarks do.

// Bookmark is the index of the latest entry this member applied.
func (n *Node) Bookmark() uint64 { return n.store.Load().AppliedIndex() }

// AppliedIndex is the last log index this member's state machine
// handled (applied, or skipped as every member skips it).
func (n *Node) AppliedIndex() uint64 { return n.fsm.index.Load() }

// WaitApplied returns once this member's state holds every entry up to
// index, or with ctx's error. Raft entries that are not commits (a new
// leader's no-op, membership changes, barriers) never reach the state
// machine: for those it waits until the last commit entry at or before
// index is applied.
func (n *Node) WaitApplied(ctx context.Context, index uint64) error {
	for {
		if err := n.Err(); err != nil {
			return err
		}
		if n.fsm.index.Load() >= index {
			return nil
		}
		if n.raft.AppliedIndex() >= index {
			target, err := n.lastCommandAtOrBefore(index)
			if err != nil {
				return err
			}
			if n.fsm.index.Load() >= target {
				return nil
			}
		}
		if n.raft.State() == raft.Shutdown {
			return errClosed
		}
		select {
		case <-ctx.Done():
			return ctxErr(ctx, "waiting for the member to apply the bookmark")
		case <-n.fsm.wait():
		case <-time.After(10 * time.Millisecond): // raft's own entries advance no state machine
		}
	}
}

// lastCommandAtOrBefore walks the log back from index to the last
// command entry (0 when none comes after what the state machine handled).
func (n *Node) lastCommandAtOrBefore(index uint64) (uint64, error) {
	floor := n.fsm.index.Load()
	for i := index; i > floor; i-- {
		var l raft.Log
		err := n.logs.GetLog(i, &l)
		if errors.Is(err, raft.ErrLogNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		if l.Type == raft.LogCommand {
			return i, nil
		}
	}
	return floor, nil
}

// LinearizableBarrier makes a read linearizable (raft's read index): on
// the leader, it takes the commit index, confirms with a quorum that
// this member still leads, and waits until the member applied that
// index. A read that starts after it returns sees every commit
// acknowledged before it was called. On a member that does not lead it
// fails with a *storage.NotLeaderError naming the leader. It returns the
// index the read sees.
func (n *Node) LinearizableBarrier(ctx context.Context) (uint64, error) {
	if err := n.rlog.Writable(); err != nil {
		return 0, err // not leading, or not yet caught up with earlier terms
	}
	index := n.raft.CommitIndex()
	done := make(chan error, 1)
	go func() { done <- n.raft.VerifyLeader().Error() }()
	select {
	case err := <-done:
		if err != nil {
			return 0, n.rlog.notLeader()
		}
	case <-ctx.Done():
		return 0, ctxErr(ctx, "confirming the lead")
	}
	return index, n.WaitApplied(ctx, index)
}
