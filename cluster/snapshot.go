package cluster

import (
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine"
)

// Raft snapshots are the engine's checkpoints, streamed (never rebuilt):
//
//	Persist  a checkpoint of the latest applied version (unless the last
//	         one holds it), its files streamed as a base archive
//	         (storage/base_archive.go) into raft's snapshot store
//	         (DataDir/raft/snapshots); raft then compacts its log, keeping
//	         Config.TrailingLogs entries
//	Restore  on a member too far behind for the log, raft streams it the
//	         leader's latest snapshot: the member closes its database,
//	         installs the archive as its checkpoint and opens the database
//	         again on it
//
// The archive's manifest records the index the checkpoint holds
// everything up to, which may be past raft's index for the snapshot
// (Persist checkpoints the latest version, applied after raft took the
// snapshot): the entries in between are skipped as applied, as after a
// restart. At start raft restores its latest snapshot again: a member
// whose checkpoint holds as much drops it unread.

// fsmSnapshot streams the member's checkpoint.
type fsmSnapshot struct{ n *Node }

// Persist writes the checkpoint archive into sink.
func (s *fsmSnapshot) Persist(sink raft.SnapshotSink) error {
	s.n.swap.RLock()
	defer s.n.swap.RUnlock()
	if _, err := s.n.db.Load().WriteCheckpointArchive(sink); err != nil {
		sink.Cancel()
		return fmt.Errorf("cluster: cannot stream a snapshot: %w", err)
	}
	return sink.Close()
}

// Release has nothing to release: the checkpoint stays the database's.
func (s *fsmSnapshot) Release() {}

// restore installs the archive r streams as the member's checkpoint,
// unless its own holds as much, and returns the index the member's
// state then holds everything up to.
func (n *Node) restore(r io.Reader) (uint64, error) {
	n.swap.Lock()
	defer n.swap.Unlock()
	db := n.db.Load()
	have := n.store.Load().AppliedIndex()
	closed := false
	index, _, err := engine.InstallCheckpointArchive(n.cfg.DataDir, n.engineOptions(), r, func(index uint64) bool {
		if index <= have {
			return false
		}
		if cerr := db.Close(); cerr != nil {
			n.log.Warn("closing the database before a snapshot install", "err", cerr)
		}
		closed = true
		return true
	})
	if !closed {
		if err != nil {
			return have, fmt.Errorf("cluster: cannot read a snapshot: %w", err)
		}
		return have, nil
	}
	// Open what the directory holds: the installed checkpoint, or after a
	// failed install the previous one.
	reopened, oerr := engine.Open(n.cfg.DataDir, n.engineOptions())
	if oerr != nil {
		oerr = fmt.Errorf("cluster: cannot open the database after a snapshot install: %w", errors.Join(err, oerr))
		n.fsm.failed.CompareAndSwap(nil, &oerr)
		return 0, oerr
	}
	n.db.Store(reopened)
	if err != nil {
		return n.store.Load().AppliedIndex(), fmt.Errorf("cluster: cannot install a snapshot: %w", err)
	}
	n.installs.Add(1)
	n.log.Info("installed a snapshot", "index", index, "applied", n.store.Load().AppliedIndex())
	return n.store.Load().AppliedIndex(), nil
}
