package cluster

import (
	"fmt"
	"testing"
)

// A FULLTEXT index created on the leader is built and kept on the
// followers from the replicated log: a search on a follower that applied
// the leader's bookmark answers as the leader does.
func TestFollowerFullText(t *testing.T) {
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
	run("UNWIND range(0, 19) AS i CREATE (:Doc {i: i, text: CASE WHEN i % 2 = 0 THEN 'even words' ELSE 'odd words' END})")
	run("CREATE FULLTEXT INDEX docs FOR (d:Doc) ON EACH [d.text]")
	for _, n := range []*Node{ld, f} {
		rows(t, n, "CALL db.awaitIndexes(60)")
	}
	run("MATCH (d:Doc) WHERE d.i < 4 SET d.text = 'changed words'")
	const q = "CALL quiver.fts.search('docs', 'even OR changed') YIELD node RETURN node.i ORDER BY node.i"
	lr, fr := rows(t, ld, q), rows(t, f, q)
	if fmt.Sprint(lr) != fmt.Sprint(fr) || len(lr) != 12 {
		t.Fatalf("leader %v, follower %v (want 12 rows)", lr, fr)
	}
}
