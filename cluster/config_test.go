package cluster

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// TestConfigChecks: a configuration missing what a member needs is
// refused before anything opens, and zero timeouts take the defaults.
func TestConfigChecks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{DataDir: dir, Address: "127.0.0.1:0"}, "needs an id"},
		{Config{ID: "n1", Address: "127.0.0.1:0"}, "data directory"},
		{Config{ID: "n1", DataDir: dir}, "raft address"},
		{Config{ID: "n1", DataDir: dir, Address: "a", Peers: []Peer{{ID: "n2", Address: "b"}}}, "do not list this member"},
		{Config{ID: "n1", DataDir: dir, Address: "a", Peers: []Peer{{ID: "n1", Address: "a"}, {ID: "n1", Address: "b"}}}, "listed twice"},
		{Config{ID: "n1", DataDir: dir, Address: "a", Peers: []Peer{{ID: "n1"}}}, "needs an id and an address"},
	} {
		_, err := Open(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error saying %q", c.cfg, err, c.want)
		}
	}
	rc := (&Config{ID: "n1"}).raftConfig(nil)
	if rc.HeartbeatTimeout != DefaultHeartbeatTimeout || rc.ElectionTimeout != DefaultElectionTimeout ||
		rc.LeaderLeaseTimeout != DefaultLeaderLeaseTimeout || rc.SnapshotThreshold != DefaultSnapshotThreshold ||
		rc.TrailingLogs != DefaultTrailingLogs || rc.SnapshotInterval != DefaultSnapshotInterval {
		t.Fatalf("defaults: %+v", rc)
	}
	if got := (&Config{ID: "n1", ElectionTimeout: time.Second}).raftConfig(nil).ElectionTimeout; got != time.Second {
		t.Fatalf("election timeout %v", got)
	}
}

// TestRefusesSingleServerDirectory: a single server's data directory
// (its checkpoint's position is a log position, not a raft index) is
// refused, before anything in it changes.
func TestRefusesSingleServerDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(context.Background(), "CREATE (:K {v: 1})", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = Open(Config{ID: "n1", Address: "127.0.0.1:0", DataDir: dir, Peers: []Peer{{ID: "n1", Address: "127.0.0.1:0"}},
		Auth: MemberAuth{Secret: []byte("a secret of sixteen bytes or more")}})
	if err == nil || !strings.Contains(err.Error(), "not a cluster member's") {
		t.Fatalf("opening a single server's directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, RaftDirName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the refused directory gained %s: %v", RaftDirName, err)
	}
}
