package cluster

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine/storage"
)

// fsm is raft's state machine: the engine's store. Every committed
// command entry is a commit record, applied with store.ApplyReplicated
// in log order: on the member that proposed it, it publishes the
// pending version; on the others it replays the record as recovery
// does. Apply never waits for a committer: committers hold the commit
// lock only briefly and wait for raft after releasing it.
type fsm struct {
	n *Node
	// index is the last log index the state machine handled (applied or
	// skipped): what WaitApplied waits on.
	index atomic.Uint64
	// failed holds the first apply error: the store no longer follows
	// the log, and the member stops serving (Node.Err).
	failed atomic.Pointer[error]
	// mu guards changed, closed and replaced at each handled entry: the
	// waiters' wake-up.
	mu      sync.Mutex
	changed chan struct{}
}

func newFSM(n *Node) *fsm {
	f := &fsm{n: n, changed: make(chan struct{})}
	f.index.Store(n.store.Load().AppliedIndex())
	return f
}

// Apply applies one committed entry. Its answer is the future's
// Response: nil (applied), storage.ErrEntrySkipped, or an error that
// stopped the member.
func (f *fsm) Apply(l *raft.Log) any {
	var res error
	if f.failed.Load() != nil {
		res = *f.failed.Load()
	} else if err := f.n.store.Load().ApplyReplicated(l.Data, l.Index); err != nil {
		res = err
		if !errors.Is(err, storage.ErrEntrySkipped) {
			f.failed.CompareAndSwap(nil, &err)
			f.n.rlog.pause() // a leader whose store cannot follow its log takes no more commits
			f.n.log.Error("the member's database cannot follow the replicated log: it takes no more commits (docs/replication.md, \"Limits\")", "index", l.Index, "err", err)
		}
	}
	if l.Index > f.index.Load() {
		f.index.Store(l.Index)
	}
	f.wake()
	return res
}

// wake tells the waiters that something changed.
func (f *fsm) wake() {
	f.mu.Lock()
	close(f.changed)
	f.changed = make(chan struct{})
	f.mu.Unlock()
}

// wait returns a channel closed at the next change.
func (f *fsm) wait() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.changed
}

// Snapshot is the member's state for raft: streamed by Persist as the
// latest checkpoint (snapshot.go).
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) {
	if err := f.n.Err(); err != nil {
		return nil, err
	}
	return &fsmSnapshot{n: f.n}, nil
}

// Restore installs a snapshot another member streamed (snapshot.go).
func (f *fsm) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	index, err := f.n.restore(rc)
	if err != nil {
		return err
	}
	if index > f.index.Load() {
		f.index.Store(index)
	}
	f.wake()
	return nil
}

var _ raft.FSM = (*fsm)(nil)
