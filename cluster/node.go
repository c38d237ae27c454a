package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/storage"
)

// Node is one member of a cluster: a database whose commits go through
// raft. Reads are served by any member from its applied state; writes
// only by the leader (a follower's fail with 25006, naming the leader).
type Node struct {
	cfg Config
	log *slog.Logger
	// db and store are replaced when the member installs a snapshot
	// (snapshot.go); swap is held (write) meanwhile, and (read) while a
	// snapshot streams.
	db atomic.Pointer[engine.DB]
	// dataDir is the member's data directory, held from Open to Close:
	// the database is opened on it again after a snapshot install, on
	// the same encrypting filesystem as the raft stores in it.
	dataDir *engine.DataDir
	store   atomic.Pointer[storage.Store]
	swap    sync.RWMutex
	// installs counts the snapshots installed since open; lastInstall
	// is how the latest one went (snapshot.go).
	installs    atomic.Int64
	lastInstall atomic.Pointer[InstallStats]
	// procs says the dbms.cluster.* procedures are registered (procs.go).
	procs  atomic.Bool
	logs   *LogStore
	stable *StableStore
	raft   *raft.Raft
	trans  raft.Transport
	fsm    *fsm
	rlog   *replLog
	// kick wakes the lead loop; stop ends it, done says it ended.
	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	// transferring keeps the lead loop from taking commits again while
	// a leadership transfer drains the proposals.
	transferring atomic.Bool
	// onLead is the database's lead hook (engine.DB.OnLead), called
	// each time the member starts taking commits.
	onLead    atomic.Pointer[func()]
	closeOnce sync.Once
	closeErr  error
}

// hook is the engine's Replication: it receives the store at open.
type hook struct{ n *Node }

func (h hook) Attach(store *storage.Store) (storage.Log, error) {
	h.n.store.Store(store)
	return h.n.rlog, nil
}

func (h hook) Writable() error { return h.n.rlog.Writable() }

func (h hook) SetLeadHook(fn func()) { h.n.onLead.Store(&fn) }

// Open opens the member: the database in cfg.DataDir (its latest
// checkpoint), raft's log in DataDir/raft, and raft itself, which
// replays the log entries after the checkpoint and joins the cluster.
// A voter whose raft log is empty bootstraps with cfg.Peers.
func Open(cfg Config) (*Node, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	n := &Node{cfg: cfg, log: cfg.Logger, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if n.log == nil {
		n.log = slog.Default()
	}
	n.log = n.log.With("member", cfg.ID)
	n.rlog = newReplLog(func() *raft.Raft { return n.raft }, n.Leader)
	if err := checkMemberDir(cfg.DataDir); err != nil {
		return nil, err
	}
	dd, err := n.lockDataDir()
	if err != nil {
		return nil, err
	}
	db, err := dd.OpenKept(n.engineOptions())
	if err != nil {
		dd.Release()
		return nil, err
	}
	n.dataDir = dd
	n.db.Store(db)
	fail := func(err error) (*Node, error) {
		n.rlog.close()
		db.Close()
		dd.Release()
		if n.logs != nil {
			n.logs.Close()
		}
		if c, ok := n.trans.(io.Closer); ok && cfg.Transport == nil {
			c.Close()
		}
		return nil, err
	}
	dir := filepath.Join(cfg.DataDir, RaftDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fail(fmt.Errorf("cluster: cannot create %s: %w", dir, err))
	}
	if n.logs, n.stable, err = openRaftStores(db.FS(), dir, 0); err != nil {
		return fail(err)
	}
	n.trans = cfg.Transport
	var addrs *peerAddresses
	if n.trans == nil {
		addrs = &peerAddresses{peers: cfg.Peers}
		t, _, err := memberTransport(cfg.Address, cfg.Auth, addrs, n.log, cfg.RaftLog)
		if err != nil {
			return fail(fmt.Errorf("cluster: cannot listen for raft on %s: %w", cfg.Address, err))
		}
		n.trans = newClosingTransport(t) // pipelines.go
	}
	rc := cfg.raftConfig(cfg.RaftLog)
	snaps, err := OpenSnapshotStore(db.FS(), dir, 2, newRaftLogger(cfg.RaftLog))
	if err != nil {
		return fail(err)
	}
	existing, err := raft.HasExistingState(n.logs, n.stable, snaps)
	if err != nil {
		return fail(fmt.Errorf("cluster: cannot read raft's state: %w", err))
	}
	n.fsm = newFSM(n)
	// The cache serves the entries just appended from memory: a follower
	// reads every entry back to apply it, and the leader each entry it
	// sends, which without it is a pread and a decode per entry each.
	cache, err := raft.NewLogCache(logCacheEntries, n.logs)
	if err != nil {
		return fail(fmt.Errorf("cluster: cannot start raft's log cache: %w", err))
	}
	r, err := raft.NewRaft(rc, n.fsm, cache, n.stable, snaps, n.trans)
	if err != nil {
		return fail(fmt.Errorf("cluster: cannot start raft: %w", err))
	}
	n.raft = r
	if addrs != nil {
		addrs.raft.Store(r)
	}
	// Voters bootstrap (raft refuses a non-voter's bootstrap): a learner
	// of the initial configuration waits for the leader to reach it.
	if !existing && cfg.selfVoter() {
		var c raft.Configuration
		for _, p := range cfg.Peers {
			s := raft.Voter
			if p.Learner {
				s = raft.Nonvoter
			}
			addr := raft.ServerAddress(p.Address)
			if p.ID == cfg.ID {
				addr = n.trans.LocalAddr() // the port bound, when the address asked for any (:0)
			}
			c.Servers = append(c.Servers, raft.Server{ID: raft.ServerID(p.ID), Address: addr, Suffrage: s})
		}
		if err := r.BootstrapCluster(c).Error(); err != nil && !errors.Is(err, raft.ErrCantBootstrap) {
			r.Shutdown().Error()
			return fail(fmt.Errorf("cluster: cannot bootstrap: %w", err))
		}
	}
	go n.rlog.propose()
	go n.rlog.collectLoop(n.wakeLead)
	go n.leadLoop()
	return n, nil
}

// checkMemberDir refuses a data directory holding a database that was
// never a member's (a single server's, an import): its checkpoint's log
// position is a write-ahead log position, not a raft index, and the
// member would skip raft entries by it.
func checkMemberDir(dir string) error {
	if _, err := os.Stat(filepath.Join(dir, storage.ManifestName)); err != nil {
		return nil
	}
	for _, name := range []string{logDirName, legacyDBName} {
		if _, err := os.Stat(filepath.Join(dir, RaftDirName, name)); err == nil {
			return nil
		}
	}
	return fmt.Errorf("cluster: %s holds a database that is not a cluster member's (a single server's, or an import): start a member on an empty directory; it receives the data from the leader", dir)
}

// logCacheEntries is how many of the latest log entries raft keeps in
// memory: more than a batch (raft's MaxAppendEntries, 64) in flight to
// each follower.
const logCacheEntries = 1024

// lockDataDir takes the member's data directory: the one the server
// locked already (Config.Engine.LockedDir), or locks it.
func (n *Node) lockDataDir() (*engine.DataDir, error) {
	opts := n.engineOptions()
	opts.LockedDir = n.cfg.Engine.LockedDir
	d, err := engine.TakeDataDir(n.cfg.DataDir, opts)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return d, nil
}

// engineOptions are the database's options: the configuration's, with
// the member as its replication.
func (n *Node) engineOptions() engine.Options {
	opts := n.cfg.Engine
	opts.LockedDir = nil // the member's directory is n.dataDir
	opts.Replication = hook{n}
	if opts.Logger == nil {
		opts.Logger = n.log
	}
	return opts
}

// DB is the member's database: run reads on it anywhere, writes on the
// leader. After a snapshot install (a member far behind) it is another
// *DB: the one held before is closed.
func (n *Node) DB() *engine.DB { return n.db.Load() }

// Address is the member's raft address: where the others reach it (the
// port bound when Config.Address asked for port 0).
func (n *Node) Address() string { return string(n.trans.LocalAddr()) }

// ID is the member's id.
func (n *Node) ID() string { return n.cfg.ID }

// Raft is the member's raft instance, for what this package does not
// wrap (tests, diagnostics). Do not Apply to it.
func (n *Node) Raft() *raft.Raft { return n.raft }

// Err is the error that stopped the member from following the log, or
// nil (the member then serves neither writes nor later entries).
func (n *Node) Err() error {
	if e := n.fsm.failed.Load(); e != nil {
		return *e
	}
	return nil
}

func (n *Node) wakeLead() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// leadLoop makes the member take commits when it leads, and stop when
// it does not. On winning an election (or after a failed proposal
// while still leading) it waits for a barrier, which applies every
// entry of earlier terms, and for its own proposals to be decided; the
// store then rewinds to the confirmed versions and leads under a fresh
// writer id (storage.Store.Lead) before the log takes appends again.
func (n *Node) leadLoop() {
	defer close(n.done)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-n.raft.LeaderCh():
		case <-n.kick:
		case <-tick.C:
		}
		if n.raft.State() != raft.Leader {
			n.rlog.pause()
			continue
		}
		if !n.rlog.needsLead() || n.Err() != nil || n.transferring.Load() {
			continue
		}
		n.rlog.pause()
		if err := n.raft.Barrier(0).Error(); err != nil {
			continue // lost the lead meanwhile: the next round sees it
		}
		if !n.waitIdle() {
			continue
		}
		n.store.Load().Lead(storage.NewWriterID())
		n.rlog.resume()
		n.log.Info("leading: taking commits", "term", n.raft.CurrentTerm(), "applied", n.store.Load().AppliedIndex())
		if fn := n.onLead.Load(); fn != nil {
			(*fn)()
		}
	}
}

// waitIdle waits until every proposal is decided; false when the member
// closes first.
func (n *Node) waitIdle() bool {
	for !n.rlog.idle() {
		select {
		case <-n.stop:
			return false
		case <-n.fsm.wait():
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

// Leader returns the leader's id and raft address, empty when none is
// known.
func (n *Node) Leader() (id, address string) {
	if n.raft == nil {
		return "", ""
	}
	addr, sid := n.raft.LeaderWithID()
	return string(sid), string(addr)
}

// Role is the member's role: "leader", "follower", "learner" (a
// non-voting follower), "candidate", or "shutdown".
func (n *Node) Role() string {
	switch n.raft.State() {
	case raft.Leader:
		return "leader"
	case raft.Candidate:
		return "candidate"
	case raft.Shutdown:
		return "shutdown"
	}
	if n.isLearner() {
		return "learner"
	}
	return "follower"
}

func (n *Node) isLearner() bool {
	f := n.raft.GetConfiguration()
	if f.Error() != nil {
		return false
	}
	for _, s := range f.Configuration().Servers {
		if s.ID == raft.ServerID(n.cfg.ID) {
			return s.Suffrage == raft.Nonvoter
		}
	}
	// Not in a configuration it has seen yet: a learner of the initial
	// one waits for the leader to reach it.
	return !n.cfg.selfVoter() && len(n.cfg.Peers) > 0
}

// Writable is nil when the member takes writes now: it leads, and has
// applied every entry of earlier terms.
func (n *Node) Writable() error { return n.rlog.Writable() }

// Close stops the member: raft first (what it proposed and did not
// commit is decided by the others), then the database (a last
// checkpoint of what it applied), then raft's log.
func (n *Node) Close() error {
	n.closeOnce.Do(func() {
		close(n.stop)
		n.rlog.close()
		shut := n.raft.Shutdown() // also ends a barrier the lead loop waits for
		// The transport closes before raft's shutdown is waited for, as
		// Consul does: raft joins its workers first, and one blocked on
		// a peer that stopped answering (a partition black-holes the
		// connection) would hold the shutdown until its I/O timed out,
		// or for good on a read with no deadline.
		if nt, ok := n.trans.(*closingTransport); ok && n.cfg.Transport == nil {
			nt.CloseStreams()
			nt.Close()
			nt.closePipelines() // a replication goroutine may be stuck in one
		}
		rerr := shut.Error()
		n.rlog.raftDown()
		<-n.done
		<-n.rlog.done
		n.swap.Lock()
		derr := n.db.Load().Close()
		n.swap.Unlock()
		berr := n.logs.Close()
		n.dataDir.Release()
		n.closeErr = errors.Join(rerr, derr, berr)
	})
	return n.closeErr
}

// errClosed is returned by waits on a closed member.
var errClosed = errors.New("cluster: the member is closed")

// ctxErr is ctx's error, said as a wait's.
func ctxErr(ctx context.Context, what string) error {
	return fmt.Errorf("cluster: %s: %w", what, context.Cause(ctx))
}
