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

	"github.com/quiverdb/quiver/engine"
)

// TestEncryptedMembers runs a cluster whose members encrypt their data
// directories at rest (each its own key): commits replicate, a member
// restarted reads its encrypted raft log and database back, and no file
// but raft's snapshots holds a committed value in clear.
func TestEncryptedMembers(t *testing.T) {
	t.Parallel()
	const marker = "cluster-plaintext-marker"
	c := newTunedCluster(t, 3, 0, func(cfg *Config) {
		key := bytes.Repeat([]byte{cfg.ID[1]}, 32)
		cfg.Engine.Encryption = &engine.Encryption{Key: func() ([]byte, error) { return key, nil }}
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
	c.stop(follower)
	for v := 11; v <= 15; v++ {
		c.commitWith(v, withMarker)
		acked = append(acked, v)
	}
	c.start(follower, c.peers)
	c.checkSame(c.leader().Bookmark(), acked)
	for id, dir := range c.dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.Contains(p, "snapshots") {
				return err
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
	}
}
