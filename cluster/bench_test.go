package cluster

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/pprof"
	"sync/atomic"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// BenchmarkCommit: one-node commits from 32 concurrent clients, on a
// single server and on the leader of three members over the in-memory
// transport, all on this machine's disk and cores. The cluster's commit
// waits for a chain of syncs — the leader's log write (one write, one
// fdatasync), then a follower's, then the reply — where the single
// server's waits for one fdatasync of its write-ahead log
// (bench/RESULTS-cluster.md has the numbers).
func BenchmarkCommit(b *testing.B) {
	b.Run("single", func(b *testing.B) {
		db, err := engine.Open(b.TempDir(), engine.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		benchCommits(b, db)
	})
	b.Run("three-members", func(b *testing.B) {
		c := newTestCluster(b, 3, 0)
		benchCommits(b, c.leader().DB())
	})
}

func benchCommits(b *testing.B, db *engine.DB) {
	var next atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := db.Query(context.Background(), fmt.Sprintf("CREATE (:K {v: %d})", next.Add(1)), nil)
			if err != nil {
				b.Error(err)
				return
			}
			res.Close()
		}
	})
}

// BenchmarkCommitTCP: BenchmarkCommit's 32 clients on the leader of
// three members over raft's TCP transport on loopback, as `quiver serve`
// members talk (entries encoded, sent and decoded). Each member's
// goroutines carry the profiler label member=<id>, so a CPU profile
// (-cpuprofile) tells the leader's work (n1) from a follower's
// (go tool pprof -tagfocus member=n2).
func BenchmarkCommitTCP(b *testing.B) {
	open := func(id string, peers []Peer) *Node {
		var n *Node
		var err error
		pprof.Do(context.Background(), pprof.Labels("member", id), func(context.Context) {
			n, err = Open(Config{ID: id, Address: "127.0.0.1:0", DataDir: b.TempDir(), Peers: peers,
				Auth:    MemberAuth{Secret: []byte("the members of this benchmark share it")},
				RaftLog: io.Discard, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { n.Close() })
		return n
	}
	n1 := open("n1", []Peer{{ID: "n1", Address: "127.0.0.1:0"}})
	c := &testCluster{t: b, nodes: map[string]*Node{"n1": n1}}
	ld := c.leader()
	for _, id := range []string{"n2", "n3"} {
		n := open(id, nil)
		if err := ld.AddVoter(ctxT(b), n.ID(), n.Address()); err != nil {
			b.Fatal(err)
		}
		c.mu.Lock()
		c.nodes[id] = n
		c.mu.Unlock()
	}
	benchCommits(b, c.leader().DB())
}
