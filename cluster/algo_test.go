package cluster

import (
	"math"
	"testing"
)

// Algorithms run on every member: a follower's algo.* procedures read
// its applied state through its own projection cache, and a commit the
// follower applies from the log invalidates what it cached, so its next
// call sees the new relationship and answers as the leader does.
func TestFollowerAlgorithms(t *testing.T) {
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
	// Three chains: 0-1-2-3, 4-5-6-7, 8-9-10-11.
	run("UNWIND range(0, 11) AS i CREATE (:A {i: i})")
	run("MATCH (a:A), (b:A) WHERE b.i = a.i + 1 AND a.i % 4 <> 3 CREATE (a)-[:R]->(b)")
	const (
		wcc      = "CALL algo.wcc.stream({}) YIELD nodeId, componentId RETURN nodeId.i, componentId ORDER BY nodeId.i"
		pagerank = "CALL algo.pagerank.stream({}) YIELD nodeId, score RETURN nodeId.i, score ORDER BY nodeId.i"
		hits     = "CALL algo.cache.stats() YIELD hits RETURN hits"
	)
	// components is how many distinct components wcc's rows name.
	components := func(rs [][]any) int {
		ids := map[any]bool{}
		for _, r := range rs {
			ids[r[1]] = true
		}
		return len(ids)
	}
	same := func(what string) {
		t.Helper()
		for _, q := range []string{wcc, pagerank} {
			lr, fr := rows(t, ld, q), rows(t, f, q)
			if len(lr) != 12 || len(fr) != len(lr) {
				t.Fatalf("%s: %d rows on the leader, %d on the follower, want 12", what, len(lr), len(fr))
			}
			for i := range lr {
				a, b := lr[i], fr[i]
				x, isFloat := a[1].(float64)
				if a[0] != b[0] || (isFloat && math.Abs(x-b[1].(float64)) > 1e-9) || (!isFloat && a[1] != b[1]) {
					t.Fatalf("%s: %s: row %d on the leader %v, on the follower %v", what, q, i, a, b)
				}
			}
		}
	}
	before := rows(t, f, wcc)
	if n := components(before); n != 3 {
		t.Fatalf("the follower's wcc finds %d components, want 3: %v", n, before)
	}
	h0 := rows(t, f, hits)[0][0].(int64)
	same("before the commit")
	if h := rows(t, f, hits)[0][0].(int64); h <= h0 {
		t.Errorf("the follower's projection cache hit %d times, then %d: not used", h0, h)
	}
	// A relationship joining two chains, committed on the leader.
	run("MATCH (a:A {i: 3}), (b:A {i: 4}) CREATE (a)-[:R]->(b)")
	after := rows(t, f, wcc)
	if n := components(after); n != 2 {
		t.Fatalf("after the commit the follower's wcc finds %d components, want 2 (a stale projection?): %v", n, after)
	}
	same("after the commit")
}
