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
	store *storage.Store
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

func newFSM(store *storage.Store) *fsm {
	f := &fsm{store: store, changed: make(chan struct{})}
	f.index.Store(store.AppliedIndex())
	return f
}

// Apply applies one committed entry. Its answer is the future's
// Response: nil (applied), storage.ErrEntrySkipped, or an error that
// stopped the member.
func (f *fsm) Apply(l *raft.Log) any {
	var res error
	if f.failed.Load() != nil {
		res = *f.failed.Load()
	} else if err := f.store.ApplyReplicated(l.Data, l.Index); err != nil {
		res = err
		if !errors.Is(err, storage.ErrEntrySkipped) {
			f.failed.CompareAndSwap(nil, &err)
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

// errSnapshotsUnsupported: snapshots from checkpoints are not built yet;
// raft is configured never to ask (Config.raftConfig).
var errSnapshotsUnsupported = errors.New("cluster: raft snapshots are not supported yet (the log is kept whole)")

// Snapshot refuses: see errSnapshotsUnsupported.
func (f *fsm) Snapshot() (raft.FSMSnapshot, error) { return nil, errSnapshotsUnsupported }

// Restore refuses: no member ever produces a snapshot to restore.
func (f *fsm) Restore(rc io.ReadCloser) error {
	rc.Close()
	return errSnapshotsUnsupported
}

var _ raft.FSM = (*fsm)(nil)
