package engine_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// Row-level security over the change stream and cdc.changes: the model
// is the query path. After each commit of one random write (before it,
// for a delete), a MATCH run as the restricted principal says whether it
// sees the element; the principal's feed must deliver exactly the
// changes of the elements it saw. cdc.changes, read at the end, gives
// the same node changes, and relationship changes only between
// endpoints the principal sees at the end.

type changeKey struct {
	op, entity string
	id         int64
}

func TestRowSecurityChangeModel(t *testing.T) {
	rng := metaRand(t, 13)
	db := openTestDBWith(t, cdcOn)
	admin := adminOf(db)
	for _, q := range []string{
		`CALL quiver.rls.createPolicy('a', {label: 'A', roles: ['reader'], predicate: 'n.x < 50'})`,
		`CALL quiver.rls.createPolicy('b', {label: 'B', roles: ['reader'], predicate: "n.name STARTS WITH 'v'"})`,
		`CALL quiver.rls.createPolicy('s', {type: 'S', roles: ['reader'], predicate: 'r.w >= 10'})`,
	} {
		mustQuery(t, admin, q, nil)
	}
	reader := readerOf(db, nil, "reader")
	start := cdcPosition(t, db, "cdc.current")
	feed, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 1 << 20, Restrict: db.RestrictChanges(reader.p)})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	// The unrestricted feed checks that each commit made its one change.
	all, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()

	sees := func(entity string, id int64) bool {
		q := "MATCH (n) WHERE id(n) = $id RETURN count(*)"
		if entity == "relationship" {
			q = "MATCH ()-[r]->() WHERE id(r) = $id RETURN count(*)"
		}
		return mustQuery(t, reader, q, engine.Params{"id": id})[0] == "1"
	}
	ids := func(q string) []int64 {
		var out []int64
		for _, r := range algoRows(t, db, q, nil) {
			out = append(out, r[0].(int64))
		}
		return out
	}
	type commitSeen struct {
		k    changeKey
		sees bool
	}
	var commits []commitSeen
	commit := func(q string, params engine.Params, op, entity string, id int64) {
		t.Helper()
		before := op == "deleted" && sees(entity, id)
		rows := algoRows(t, db, q, params)
		if op == "created" {
			id = rows[0][0].(int64)
		}
		commits = append(commits, commitSeen{changeKey{op, entity, id}, op == "deleted" && before || op != "deleted" && sees(entity, id)})
	}
	names := []string{"vic", "val", "bob", "ann"}
	for i := 0; i < 300; i++ {
		nodes := ids("MATCH (n) WHERE NOT n:End RETURN id(n)")
		rels := ids("MATCH ()-[r]->() RETURN id(r)")
		switch k := rng.IntN(10); {
		case k < 3 || len(nodes) < 2:
			labels := []string{"", ":A", ":B", ":A:B"}[rng.IntN(4)]
			commit("CREATE (n"+labels+" {x: $x, name: $name}) RETURN id(n)",
				engine.Params{"x": int64(rng.IntN(100)), "name": names[rng.IntN(4)]}, "created", "node", 0)
		case k < 5:
			// Every update changes something, so each commit is one change.
			id := nodes[rng.IntN(len(nodes))]
			cur := algoRows(t, db, "MATCH (n) WHERE id(n) = $id RETURN n:A, n.x, n.name", engine.Params{"id": id})[0]
			x, name := (cur[1].(int64)+1+int64(rng.IntN(98)))%100, names[rng.IntN(4)]
			for name == cur[2] {
				name = names[rng.IntN(4)]
			}
			q := []string{"MATCH (n) WHERE id(n) = $id SET n.x = $x", "MATCH (n) WHERE id(n) = $id SET n.name = $name",
				"MATCH (n) WHERE id(n) = $id SET n:A", "MATCH (n) WHERE id(n) = $id REMOVE n:A"}[rng.IntN(3)]
			if q == "MATCH (n) WHERE id(n) = $id SET n:A" && cur[0] == true {
				q = "MATCH (n) WHERE id(n) = $id REMOVE n:A"
			}
			commit(q, engine.Params{"id": id, "x": x, "name": name}, "updated", "node", id)
		case k < 7:
			a, b := nodes[rng.IntN(len(nodes))], nodes[rng.IntN(len(nodes))]
			typ := []string{"S", "R"}[rng.IntN(2)]
			commit("MATCH (a), (b) WHERE id(a) = $a AND id(b) = $b CREATE (a)-[r:"+typ+" {w: $w}]->(b) RETURN id(r)",
				engine.Params{"a": a, "b": b, "w": int64(rng.IntN(20))}, "created", "relationship", 0)
		case k < 8 && len(rels) > 0:
			id := rels[rng.IntN(len(rels))]
			w := algoRows(t, db, "MATCH ()-[r]->() WHERE id(r) = $id RETURN r.w", engine.Params{"id": id})[0][0].(int64)
			commit("MATCH ()-[r]->() WHERE id(r) = $id SET r.w = $w", engine.Params{"id": id, "w": (w + 1 + int64(rng.IntN(18))) % 20}, "updated", "relationship", id)
		case k < 9 && len(rels) > 0:
			id := rels[rng.IntN(len(rels))]
			commit("MATCH ()-[r]->() WHERE id(r) = $id DELETE r", engine.Params{"id": id}, "deleted", "relationship", id)
		default:
			// A node without relationships (a DETACH DELETE would be
			// several changes in one commit).
			free := ids("MATCH (n) WHERE NOT n:End AND NOT (n)--() RETURN id(n)")
			if len(free) == 0 {
				continue
			}
			id := free[rng.IntN(len(free))]
			commit("MATCH (n) WHERE id(n) = $id DELETE n", engine.Params{"id": id}, "deleted", "node", id)
		}
	}
	mustQuery(t, db, "CREATE (:End)", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	keys := func(f *engine.ChangeFeed) []changeKey {
		batches, err := collect(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []changeKey
		for _, b := range batches {
			for _, c := range b.Changes {
				if c.Entity == engine.ChangeNode && slices.Contains(c.Labels, "End") {
					continue
				}
				out = append(out, changeKey{c.Op.String(), c.Entity.String(), int64(c.ID)})
			}
		}
		return out
	}
	got, occurred := keys(feed), keys(all)
	var want, gotNodes []changeKey
	if len(occurred) != len(commits) {
		t.Fatalf("%d commits made %d changes: each commit must make one", len(commits), len(occurred))
	}
	for i, c := range commits {
		if occurred[i] != c.k {
			t.Fatalf("commit %d made %v, not %v", i, occurred[i], c.k)
		}
		if c.sees {
			want = append(want, c.k)
		}
	}
	for _, k := range got {
		if k.entity == "node" {
			gotNodes = append(gotNodes, k)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the restricted feed delivered %d changes, the model %d:\nfeed  %v\nmodel %v", len(got), len(want), got, want)
	}
	// cdc.changes as the reader.
	var cdcNodes []changeKey
	from := start
	for {
		rows := algoRows(t, reader, "CALL cdc.changes($from, {limit: 500}) YIELD position, operation, entity, id, labels RETURN position, operation, entity, id, labels",
			engine.Params{"from": from})
		for _, r := range rows {
			from = r[0].(string)
			k := changeKey{r[1].(string), r[2].(string), r[3].(int64)}
			if labels, _ := r[4].([]vector.Value); slices.Contains(labels, vector.Value("End")) {
				continue
			}
			if k.entity == "node" {
				cdcNodes = append(cdcNodes, k)
				continue
			}
			ends := algoRows(t, db, "MATCH (a)-[r]->(b) WHERE id(r) = $id RETURN id(a), id(b)", engine.Params{"id": k.id})
			if len(ends) == 1 && (!sees("node", ends[0][0].(int64)) || !sees("node", ends[0][1].(int64))) {
				t.Fatalf("cdc.changes shows %v between endpoints the reader does not see", k)
			}
		}
		if len(rows) < 500 {
			break
		}
	}
	if fmt.Sprint(cdcNodes) != fmt.Sprint(gotNodes) {
		t.Fatalf("cdc.changes gave the reader %d node changes, the feed %d:\ncdc  %v\nfeed %v", len(cdcNodes), len(gotNodes), cdcNodes, gotNodes)
	}
	if len(want) < 50 {
		t.Fatalf("only %d visible changes: the test shows little", len(want))
	}
}
