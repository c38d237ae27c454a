package cluster

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/raft"
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

// InstallStats is how a member's latest snapshot install went: raft has
// received the snapshot whole (into DataDir/raft/snapshots) when the
// install starts.
type InstallStats struct {
	// Start is when the install started; Bytes the archive's size.
	Start time.Time
	Bytes int64
	// Install is the time to write the archive's files as the member's
	// checkpoint (synced); Reopen the time to open the database on it.
	Install, Reopen time.Duration
}

// LastInstall is how the member's latest snapshot install since open
// went; nil when it installed none.
func (n *Node) LastInstall() *InstallStats { return n.lastInstall.Load() }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// restore installs the archive r streams as the member's checkpoint,
// unless its own holds as much, and returns the index the member's
// state then holds everything up to.
func (n *Node) restore(r io.Reader) (uint64, error) {
	n.swap.Lock()
	defer n.swap.Unlock()
	db := n.db.Load()
	have := n.store.Load().AppliedIndex()
	closed := false
	stats := InstallStats{Start: time.Now()}
	counted := &countingReader{r: r}
	index, _, err := n.dataDir.InstallCheckpointArchive(counted, func(index uint64) bool {
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
	stats.Bytes, stats.Install = counted.n, time.Since(stats.Start)
	// Open what the directory holds: the installed checkpoint, or after a
	// failed install the previous one.
	reopened, oerr := n.dataDir.OpenKept(n.engineOptions())
	stats.Reopen = time.Since(stats.Start) - stats.Install
	if oerr != nil {
		oerr = fmt.Errorf("cluster: cannot open the database after a snapshot install: %w", errors.Join(err, oerr))
		n.fsm.failed.CompareAndSwap(nil, &oerr)
		return 0, oerr
	}
	n.db.Store(reopened)
	if perr := n.reregisterProcedures(); perr != nil {
		n.log.Error("registering the cluster procedures on the reopened database", "err", perr)
	}
	if n.cfg.Reopened != nil {
		go n.cfg.Reopened()
	}
	if err != nil {
		return n.store.Load().AppliedIndex(), fmt.Errorf("cluster: cannot install a snapshot: %w", err)
	}
	n.lastInstall.Store(&stats)
	n.installs.Add(1)
	n.log.Info("installed a snapshot", "index", index, "applied", n.store.Load().AppliedIndex(),
		"bytes", stats.Bytes, "install", stats.Install, "reopen", stats.Reopen)
	return n.store.Load().AppliedIndex(), nil
}
