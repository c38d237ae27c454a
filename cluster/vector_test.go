package cluster

import (
	"fmt"
	"testing"
)

// A VECTOR index created on the leader is built and kept on the
// followers from the replicated log: a search on a follower that applied
// the leader's bookmark answers as the leader does.
func TestFollowerVectorIndex(t *testing.T) {
	t.Parallel()
	c := newTestCluster(t, 3, 0)
	ctx := ctxT(t)
	ld := c.leader()
	var f *Node
	for _, n := range c.live() {
		if n != ld {
			f = n
			break
		}
	}
	run := func(q string) {
		t.Helper()
		res, err := ld.DB().Query(ctx, q, nil)
		if err != nil {
			t.Fatalf("on the leader: %s: %v", q, err)
		}
		res.Close()
		if err := f.WaitApplied(ctx, ld.Bookmark()); err != nil {
			t.Fatal(err)
		}
	}
	run("UNWIND range(0, 39) AS i CREATE (:Doc {i: i, e: [cos(radians(i * 9)), sin(radians(i * 9)), 0.0]})")
	run("CREATE VECTOR INDEX docs FOR (d:Doc) ON (d.e) OPTIONS {dimensions: 3, similarity: 'cosine', m: 8}")
	for _, n := range []*Node{ld, f} {
		rows(t, n, "CALL db.awaitIndexes(60)")
		if got := rows(t, n, "CALL db.indexes() YIELD name, type, state RETURN name, type, state"); fmt.Sprint(got) != "[[docs VECTOR ONLINE]]" {
			t.Fatalf("db.indexes() = %v", got)
		}
	}
	// Writes after the build: 5 moves away, 30 moves to 45°, 6 is deleted;
	// from 46° the nearest are then 30 (1°), 4 (10°) and 7 (17°).
	run("MATCH (d:Doc {i: 5}) SET d.e = [0.0, 0.0, 1.0]")
	run("MATCH (d:Doc {i: 30}) SET d.e = [0.7071, 0.7071, 0.0]")
	run("MATCH (d:Doc {i: 6}) DELETE d")
	const q = "CALL quiver.vector.search('docs', [0.6947, 0.7193, 0.0], 3) YIELD node RETURN node.i"
	lr, fr := rows(t, ld, q), rows(t, f, q)
	if fmt.Sprint(lr) != fmt.Sprint(fr) || fmt.Sprint(lr) != "[[30] [4] [7]]" {
		t.Fatalf("leader %v, follower %v (want [[30] [4] [7]])", lr, fr)
	}
}
