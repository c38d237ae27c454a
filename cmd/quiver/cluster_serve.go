package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/quiverdb/quiver/cluster"
	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/serving"
)

// openMember opens the database as a member of a cluster
// (--replication-mode raft or replica): raft's log in the data
// directory, which dir holds locked, and the dbms.cluster.* procedures.
// reopens hears of each snapshot install (Config.Reopened).
func openMember(o serveOptions, dir *engine.DataDir, opts engine.Options, reopens *reopenWatch, log *slog.Logger) (*cluster.Node, error) {
	c := o.cluster
	opts.LockedDir = dir
	n, err := cluster.Open(cluster.Config{ID: c.nodeID, Address: c.raftListen, Auth: c.auth, DataDir: o.dataDir, Peers: c.peers, Engine: opts, Logger: log,
		Reopened: reopens.notify, MemberApplied: peerApplied(c.httpAddresses(o))})
	if err != nil {
		return nil, fmt.Errorf("cannot open the cluster member: %w", err)
	}
	if err := n.RegisterProcedures(); err != nil {
		n.Close()
		return nil, err
	}
	log.Info("cluster member", "mode", c.mode, "member_auth", authKind(c.auth), "node_id", c.nodeID, "raft", c.raftListen, "peers", len(c.peers), "follower_writes", c.followerWrites)
	return n, nil
}

// member is a cluster member as the frontends see it (serving.Cluster):
// the node, and the members' client addresses for routing writes.
type member struct {
	n        *cluster.Node
	peerHTTP map[string]string
}

var _ serving.Cluster = (*member)(nil)

func (m *member) Role() string     { return m.n.Role() }
func (m *member) MemberID() string { return m.n.ID() }
func (m *member) Bookmark() uint64 { return m.n.Bookmark() }

func (m *member) Leader() (id, url string) {
	id, _ = m.n.Leader()
	return id, m.peerHTTP[id]
}

func (m *member) WaitApplied(ctx context.Context, index uint64) error {
	return m.n.WaitApplied(ctx, index)
}

func (m *member) Linearizable(ctx context.Context) error { return m.n.ReadIndex(ctx) }

// laggingEntries is how far raft's applied index may trail the commit
// index this member knows of and its replication still say "ok".
const laggingEntries = 1000

func (m *member) Replication() string {
	switch {
	case m.n.Err() != nil:
		return serving.ReplicationFailed
	case func() bool { id, _ := m.n.Leader(); return id == "" }():
		return serving.ReplicationNoLeader
	case m.n.CommitIndex() > m.n.Raft().AppliedIndex()+laggingEntries:
		return serving.ReplicationLagging
	}
	return "ok"
}

func (m *member) Status() serving.ClusterStatus {
	id, url := m.Leader()
	st := serving.ClusterStatus{MemberID: m.n.ID(), LeaderID: id, LeaderURL: url, Applied: m.n.AppliedIndex(), Commit: m.n.CommitIndex()}
	if ms, err := m.n.Members(); err == nil {
		st.Members = len(ms)
	}
	return st
}
