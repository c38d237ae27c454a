package serving

import (
	"context"
	"errors"
	"fmt"
)

// Cluster is what the frontends need of a member of a replicated
// cluster (docs/replication.md): its role and leader, for status and for
// routing writes, and its applied log index, for bookmarks. A single
// server has none (nil). The server (cmd/quiver) implements it over
// package cluster, with the members' client addresses.
type Cluster interface {
	// Role is "leader", "follower", "learner" or "candidate".
	Role() string
	// MemberID is this member's id.
	MemberID() string
	// Leader names the leader: its id and the client (HTTP) base URL
	// where it takes writes, e.g. http://127.0.0.1:3141. Both are empty
	// when no leader is known; url alone when its address is not
	// configured (--peer-http).
	Leader() (id, url string)
	// Bookmark is the index of the latest log entry this member
	// applied: read once a commit returned, the commit's bookmark.
	Bookmark() uint64
	// WaitApplied returns once this member applied the entry at index
	// (a bookmark), or with ctx's error.
	WaitApplied(ctx context.Context, index uint64) error
	// Linearizable takes the leader's read index: on return, a read
	// sees every commit acknowledged before the call. On a member that
	// does not lead it fails with the engine's 25006 error.
	Linearizable(ctx context.Context) error
	// Replication is the health of this member's replication: "ok" when
	// a leader is known and this member is caught up, else a word saying
	// why not (ReplicationNoLeader, ReplicationLagging, ReplicationFailed).
	Replication() string
	// Status are facts for GET /api/v1/status's "cluster" object.
	Status() ClusterStatus
}

// Words of Cluster.Replication other than "ok".
const (
	ReplicationNoLeader = "no_leader" // an election runs, or this member is cut off
	ReplicationLagging  = "lagging"   // this member is behind the log's commit index
	ReplicationFailed   = "failed"    // this member stopped applying the log
)

// ClusterStatus are a member's cluster facts.
type ClusterStatus struct {
	MemberID, LeaderID, LeaderURL string
	// Applied is this member's applied index, Commit the commit index it
	// knows of.
	Applied, Commit uint64
	// Members is the configuration's size, voters and learners.
	Members int
}

// ErrBookmarkTimeout is the cause of a bookmark wait that outlived the
// request's time.
var ErrBookmarkTimeout = errors.New("the member did not apply the bookmark in time")

// WaitBookmark waits until c applied bookmark (no wait for 0), wrapping a
// timeout as ErrBookmarkTimeout with what the member has applied.
func WaitBookmark(ctx context.Context, c Cluster, bookmark uint64) error {
	if c == nil || bookmark == 0 || c.Bookmark() >= bookmark {
		return nil
	}
	if err := c.WaitApplied(ctx, bookmark); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w: waited for bookmark %d, applied %d", ErrBookmarkTimeout, bookmark, c.Bookmark())
		}
		return err
	}
	return nil
}
