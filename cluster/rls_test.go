package cluster

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// Row-level security policies are system records: made on the leader,
// they filter a restricted principal's reads on every member once it
// applied them, and their drop does too; a follower refuses to make one
// (25006).
func TestRowSecurityReplicated(t *testing.T) {
	c := newTestCluster(t, 3, 0)
	ctx := ctxT(t)
	l := c.leader()
	admin := engine.WithPrincipal(ctx, &engine.Principal{Name: "root", Roles: []string{"admin"}, Privileges: engine.PrivAll})
	reader := engine.WithPrincipal(ctx, &engine.Principal{Name: "ann", Roles: []string{"reader"}, Privileges: engine.PrivRead,
		Attributes: map[string]vector.Value{"maxv": int64(2)}})
	run := func(ctx context.Context, n *Node, q string) ([]string, error) {
		res, err := n.DB().Query(ctx, q, nil)
		if err != nil {
			return nil, err
		}
		defer res.Close()
		var out []string
		for {
			b, err := res.Next()
			if err != nil {
				return nil, err
			}
			if b == nil {
				return out, nil
			}
			for i := 0; i < b.Rows(); i++ {
				out = append(out, fmt.Sprint(b.Cols[0].Get(b.Row(i))))
			}
		}
	}
	for v := 1; v <= 4; v++ {
		if err := write(ctx, l, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := run(admin, l, `CALL quiver.rls.createPolicy('small', {label: 'K', roles: ['reader'], predicate: 'n.v <= $user.maxv'})`); err != nil {
		t.Fatal(err)
	}
	check := func(want string) {
		t.Helper()
		bm := l.Bookmark()
		for _, n := range c.live() {
			if err := n.WaitApplied(ctx, bm); err != nil {
				t.Fatal(err)
			}
			got, err := run(reader, n, "MATCH (k:K) RETURN count(*)")
			if err != nil || fmt.Sprint(got) != want {
				t.Fatalf("%s: %v %v, want %s", n.ID(), got, err, want)
			}
		}
	}
	check("[2]")
	for _, n := range c.live() {
		if n == l {
			continue
		}
		_, err := run(admin, n, `CALL quiver.rls.dropPolicy('small')`)
		if code(err) != "25006" && c.leader() == l {
			t.Fatalf("%s dropped a policy as a follower: %v", n.ID(), err)
		}
	}
	if _, err := run(admin, l, `CALL quiver.rls.dropPolicy('small')`); err != nil {
		t.Fatal(err)
	}
	check("[4]")
}
