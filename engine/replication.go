package engine

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/quiverdb/quiver/engine/durable"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/engine/storage/vfs"
)

// Replication makes a database one member of a replicated cluster
// (package cluster implements it over Raft; docs/replication.md). The
// engine does not know the protocol: it hands the replication its store
// at open, commits through the log it gets back, and asks it before a
// write statement runs whether this member takes writes.
//
// With Options.Replication set, the data directory holds no write-ahead
// log: a commit is durable once the replicated log holds it on a quorum
// (its Sync), and checkpoints record the log index they hold everything
// up to (durable.Checkpoints).
type Replication interface {
	// Attach is called once by Open, when the store holds the data
	// directory's checkpoint (store.AppliedIndex() is the index it holds
	// everything up to): it returns the log commits go through
	// (Append refusing with a *storage.NotLeaderError on a member that
	// does not lead) and from then on applies committed entries with
	// store.ApplyReplicated.
	Attach(store *storage.Store) (storage.Log, error)
	// Writable returns nil when this member takes writes now, else a
	// *storage.NotLeaderError: a write statement fails with it (25006)
	// before it runs, so that a follower never creates catalog names
	// the leader's log does not hold.
	Writable() error
	// SetLeadHook makes fn the call the replication makes each time this
	// member starts taking writes (Writable turns nil); a later call
	// replaces it (a member that installed a snapshot opens a new
	// database on the same replication). fn does not block.
	SetLeadHook(fn func())
}

// NotLeaderError is the cause (errors.As) of a 25006 error: a write
// sent to a member that does not lead, naming the leader when known.
type NotLeaderError = storage.NotLeaderError

// Durability of a database: the write-ahead log and its checkpointer, or
// a replicated database's checkpoints.
type durability interface {
	Checkpoint(reason string) (uint64, int64, error)
	Close() error
	Abandon()
	Stats() durable.Stats
}

var (
	_ durability = (*durable.Log)(nil)
	_ durability = (*durable.Checkpoints)(nil)
)

// writable is nil, or the 25006 error of a write on a member of a
// replicated cluster that does not lead.
func (db *DB) writable() error {
	if err := db.checkDiskQuota(); err != nil {
		return err
	}
	if db.opts.Replication == nil {
		return nil
	}
	if err := db.opts.Replication.Writable(); err != nil {
		if e := storage.ReplicationError(err); e != nil {
			return e
		}
		return err
	}
	return nil
}

// AppliedIndex is the log position of the latest durable version: for a
// replicated database the index of the last applied entry of the
// replicated log. Read after a commit returns, it is a bookmark: another
// member that has applied it holds that commit (cluster.Node.WaitApplied).
func (db *DB) AppliedIndex() uint64 { return db.store.LSN() }

// openReplicated attaches a replicated database's store to its
// replication and starts its checkpoints. A directory whose
// write-ahead log holds commits (a single server's) is refused: its
// commits are in no replicated log, so the members would disagree.
func openReplicated(store *storage.Store, fsys vfs.FS, dir string, writer uint64, log *slog.Logger, opts Options) (durability, error) {
	if durable.WALHoldsRecords(fsys, dir) {
		return nil, fmt.Errorf("the data directory %s holds a write-ahead log of commits (a single server's): a replicated member starts on an empty directory and receives the data from its cluster", dir)
	}
	l, err := opts.Replication.Attach(store)
	if err != nil {
		return nil, fmt.Errorf("cannot attach the database to its replication: %w", err)
	}
	store.SetReplicatedLog(l)
	return durable.OpenCheckpoints(store, fsys, dir, writer, log, opts.CheckpointInterval)
}

// WriteCheckpointArchive streams a checkpoint of a replicated database
// to w (durable.Checkpoints.Archive): a raft snapshot of the member. It
// returns the log index the archive holds everything up to.
func (db *DB) WriteCheckpointArchive(w io.Writer) (uint64, error) {
	c, ok := db.dur.(*durable.Checkpoints)
	if !ok {
		return 0, errors.New("only a replicated database streams its checkpoints")
	}
	return c.Archive(w)
}

// InstallCheckpointArchive reads a checkpoint archive another member
// streamed (WriteCheckpointArchive) from r. accept is shown the log index
// it holds everything up to: when it declines, the archive is read and
// dropped; when it agrees, it must have closed the database opened on d
// (OpenKept), and the archive becomes d's checkpoint. Open the database
// on d again afterwards.
func (d *DataDir) InstallCheckpointArchive(r io.Reader, accept func(index uint64) bool) (index uint64, installed bool, err error) {
	a, err := storage.OpenBaseArchive(r)
	if err != nil {
		return 0, false, err
	}
	index = a.Stamp().LSN
	if !accept(index) {
		return index, false, a.Discard()
	}
	if d.Released() {
		return index, false, errors.New("the data directory was released")
	}
	if _, err := a.Install(d.FS(), d.Path()); err != nil {
		return index, false, err
	}
	return index, true, nil
}
