package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/hashicorp/raft"
	"github.com/quiverdb/quiver/engine"
)

// Default timeouts. hashicorp/raft's defaults (1 s heartbeat and
// election timeouts) elect a new leader 2–4 s after one dies: a follower
// notices after a random wait in [HeartbeatTimeout, 2×HeartbeatTimeout],
// then a candidate wins after a random [ElectionTimeout,
// 2×ElectionTimeout]. Half of each brings that to 1–2 s on a healthy
// network, the goal (≤ 2 s), while a loopback or LAN round trip
// stays a hundred times shorter than a heartbeat timeout.
const (
	DefaultHeartbeatTimeout   = 500 * time.Millisecond
	DefaultElectionTimeout    = 500 * time.Millisecond
	DefaultLeaderLeaseTimeout = 250 * time.Millisecond
	// DefaultCommitTimeout is how long the leader waits to batch entries
	// before it sends them without a new one (raft's default).
	DefaultCommitTimeout = 50 * time.Millisecond
)

// RaftDirName is raft's directory inside a member's data directory.
const RaftDirName = "raft"

// Peer is one member of the initial configuration.
type Peer struct {
	ID      string
	Address string
	// Learner makes it a non-voting member: it receives every entry and
	// serves reads, but never votes nor counts toward a quorum.
	Learner bool
}

// Config opens a member (Open).
type Config struct {
	// ID names the member in the cluster (unique, stable across restarts).
	ID string
	// Address is where the member's raft transport listens and where the
	// others reach it (host:port). Ignored when Transport is set.
	Address string
	// Transport, when set, carries raft's messages instead of the
	// authenticated TCP transport on Address (tests use
	// raft.NewInmemTransport).
	Transport raft.Transport
	// Auth is how members authenticate each other on the TCP transport
	// Open builds (required when Transport is nil): member_auth.go.
	Auth MemberAuth
	// DataDir holds the database (engine) and raft's log (DataDir/raft).
	DataDir string
	// Peers is the initial configuration, this member included: when
	// raft's log is empty a voter bootstraps the cluster with it (every
	// voter may, with the same list). A learner, or a member with no
	// Peers, waits for the leader to reach it (for one not in the initial
	// list: Node.AddVoter, Node.AddLearner on the leader).
	Peers []Peer
	// Engine are the database's options (Replication is set by Open).
	Engine engine.Options
	// Raft's timeouts; zero keeps the defaults above.
	HeartbeatTimeout, ElectionTimeout, LeaderLeaseTimeout, CommitTimeout time.Duration
	// Snapshots (snapshot.go): raft takes one when SnapshotThreshold
	// entries were appended since the last, checking every
	// SnapshotInterval, and keeps TrailingLogs entries behind it so that a
	// follower a little behind catches up from the log. Zero keeps the
	// defaults below.
	SnapshotThreshold uint64
	SnapshotInterval  time.Duration
	TrailingLogs      uint64
	// Logger receives the member's logs (nil: slog.Default()); RaftLog
	// raft's own (nil: standard error), at warning level and above.
	Logger  *slog.Logger
	RaftLog io.Writer
	// MemberApplied, when set, asks member id for its applied index
	// (quiver serve: the member's --peer-http status endpoint): raft does
	// not expose the leader's view of its followers' progress, so
	// dbms.cluster.overview() asks each of the others, within
	// memberAskTimeout, for their applied index and lag. Without it, or
	// when a member does not answer, they are unknown (null).
	MemberApplied func(ctx context.Context, id string) (uint64, error)
	// Reopened, when set, is called (on a goroutine of its own) after the
	// member installed a snapshot from the leader and reopened its
	// database: Node.DB() is then a new *engine.DB, and whoever holds the
	// old one (a server's frontends) must let go of it. quiver serve
	// restarts itself on the installed data.
	Reopened func()
}

func (c *Config) check() error {
	if c.ID == "" {
		return errors.New("cluster: a member needs an id")
	}
	if c.DataDir == "" {
		return errors.New("cluster: a member needs a data directory")
	}
	if c.Transport == nil && c.Address == "" {
		return errors.New("cluster: a member needs a raft address")
	}
	seen := map[string]bool{}
	self := false
	for _, p := range c.Peers {
		if p.ID == "" || p.Address == "" {
			return fmt.Errorf("cluster: peer %q needs an id and an address", p.ID)
		}
		if seen[p.ID] {
			return fmt.Errorf("cluster: peer %q is listed twice", p.ID)
		}
		seen[p.ID] = true
		self = self || p.ID == c.ID
	}
	if len(c.Peers) > 0 && !self {
		return fmt.Errorf("cluster: the peers do not list this member (%s)", c.ID)
	}
	if c.Transport == nil {
		return c.Auth.check()
	}
	return nil
}

// Snapshot defaults. A snapshot is a checkpoint (a whole base written
// and streamed into raft's snapshot store), so they are rarer than
// raft's defaults (8192 entries, 2 minutes): the log between two takes
// little room next to a base.
const (
	DefaultSnapshotThreshold = 65536
	DefaultSnapshotInterval  = 5 * time.Minute
	DefaultTrailingLogs      = 10240
)

// raftConfig is raft's configuration for c.
func (c *Config) raftConfig(w io.Writer) *raft.Config {
	rc := raft.DefaultConfig()
	rc.LocalID = raft.ServerID(c.ID)
	rc.HeartbeatTimeout = or(c.HeartbeatTimeout, DefaultHeartbeatTimeout)
	rc.ElectionTimeout = or(c.ElectionTimeout, DefaultElectionTimeout)
	rc.LeaderLeaseTimeout = or(c.LeaderLeaseTimeout, DefaultLeaderLeaseTimeout)
	rc.CommitTimeout = or(c.CommitTimeout, DefaultCommitTimeout)
	rc.SnapshotThreshold = cmp.Or(c.SnapshotThreshold, DefaultSnapshotThreshold)
	rc.SnapshotInterval = or(c.SnapshotInterval, DefaultSnapshotInterval)
	rc.TrailingLogs = cmp.Or(c.TrailingLogs, DefaultTrailingLogs)
	// The proposer hands commits to raft one call at a time: a buffered
	// apply channel lets them queue while the leader's loop writes the
	// previous batch, so concurrent commits share one log write and one
	// round of replication (group commit, as the write-ahead log's).
	rc.BatchApplyCh = true
	rc.Logger = newRaftLogger(w)
	return rc
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// selfVoter reports whether Peers lists this member as a voter.
func (c *Config) selfVoter() bool {
	for _, p := range c.Peers {
		if p.ID == c.ID {
			return !p.Learner
		}
	}
	return false
}
