package cluster

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// TestEncryptedMembers runs a cluster whose members encrypt their data
// directories at rest (each its own key), taking raft snapshots every few
// entries: commits replicate; a member stopped while the log was
// compacted past it restarts from its own encrypted snapshot and installs
// the leader's, streamed from the leader's encrypted store; and no file,
// raft's snapshots included, holds a committed value in clear.
func TestEncryptedMembers(t *testing.T) {
	t.Parallel()
	const marker = "cluster-plaintext-marker"
	c := newTunedCluster(t, 3, 0, func(cfg *Config) {
		key := bytes.Repeat([]byte{cfg.ID[1]}, 32)
		cfg.Engine.Encryption = &engine.Encryption{Key: func() ([]byte, error) { return key, nil }}
		cfg.SnapshotThreshold = 16
		cfg.SnapshotInterval = 20 * time.Millisecond
		cfg.TrailingLogs = 4
	})
	withMarker := func(ctx context.Context, n *Node, v int) error {
		res, err := n.DB().Query(ctx, fmt.Sprintf("CREATE (:K {v: %d, s: '%s'})", v, marker), nil)
		if err != nil {
			return err
		}
		return res.Close()
	}
	var acked []int
	for v := 1; v <= 10; v++ {
		c.commitWith(v, withMarker)
		acked = append(acked, v)
	}
	var follower string
	for _, n := range c.live() {
		if n != c.leader() {
			follower = n.ID()
		}
	}
	behind := c.nodes[follower].Raft().LastIndex()
	c.stop(follower)
	// Commit until every live member's log starts past what the follower
	// holds: it can catch up only from a snapshot.
	compacted := func() bool {
		for _, n := range c.live() {
			first, err := n.logs.FirstIndex()
			if err != nil || first <= behind+1 {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(testDeadline)
	for v := 11; v <= 40 || !compacted(); v++ {
		if time.Now().After(deadline) {
			t.Fatal("the log was not compacted")
		}
		c.commitWith(v, withMarker)
		acked = append(acked, v)
	}
	n := c.start(follower, c.peers)
	c.checkSame(c.leader().Bookmark(), acked)
	if n.installs.Load() == 0 {
		t.Fatalf("%s caught up without installing a snapshot", follower)
	}
	for id, dir := range c.dirs {
		snaps := 0
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.Contains(p, snapDirName) && filepath.Base(p) == snapStateName {
				snaps++
			}
			b, err := os.ReadFile(p)
			if err == nil && bytes.Contains(b, []byte(marker)) {
				t.Errorf("%s: %s holds a committed value in clear", id, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if snaps == 0 {
			t.Errorf("%s took no snapshot", id)
		}
	}

	// The member that installed a snapshot re-encrypts its directory. Its
	// database was opened again on the filesystem its raft stores use, so
	// the re-encryption leaves the raft files they hold open alone: what
	// raft appends afterwards is on disk when the member stops.
	rows(t, n, "CALL tde.reencrypt()")
	deadline = time.Now().Add(testDeadline)
	for rows(t, n, "CALL tde.status() YIELD state RETURN state")[0][0] == "reencrypting" {
		if time.Now().After(deadline) {
			t.Fatal("the re-encryption did not end")
		}
		time.Sleep(5 * time.Millisecond)
	}
	for range 10 {
		v := acked[len(acked)-1] + 1
		c.commitWith(v, withMarker)
		acked = append(acked, v)
	}
	c.checkSame(c.leader().Bookmark(), acked)
	last := n.Raft().LastIndex()
	c.stop(follower)
	key := bytes.Repeat([]byte{follower[1]}, 32)
	dd, err := engine.LockDataDir(c.dirs[follower], engine.Options{Encryption: &engine.Encryption{Key: func() ([]byte, error) { return key, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	defer dd.Release()
	logs, err := OpenLogStore(dd.FS(), filepath.Join(c.dirs[follower], RaftDirName, logDirName), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	if got, err := logs.LastIndex(); err != nil || got < last {
		t.Fatalf("%s's raft log ends at %d (%v) after its restart, want %d", follower, got, err, last)
	}
}
