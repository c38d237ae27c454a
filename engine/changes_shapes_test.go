package engine_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// The shape of changes: one per entity written, with labels, endpoints,
// before and after; nothing for a no-op update, an entity created and
// deleted in one transaction, or a schema change; one summary for a
// commit beyond MaxChangesPerCommit.
func TestChangeFeedShapes(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f, err := db.SubscribeChanges(engine.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pBig, _ := engine.ParseChangePattern("(:Big)")
	pOther, _ := engine.ParseChangePattern("(:Other)")
	big, err := db.SubscribeChanges(engine.SubscribeOptions{Patterns: []*engine.ChangePattern{pBig}})
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	other, err := db.SubscribeChanges(engine.SubscribeOptions{Patterns: []*engine.ChangePattern{pOther}})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	next := func() engine.ChangeBatch {
		t.Helper()
		b, err := f.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	find := func(b engine.ChangeBatch, e engine.ChangeEntity, label string) engine.Change {
		t.Helper()
		for _, c := range b.Changes {
			if c.Entity == e && (e == engine.ChangeRelationship || slices.Contains(c.Labels, label)) {
				return c
			}
		}
		t.Fatalf("no %v %s change in %+v", e, label, b.Changes)
		return engine.Change{}
	}
	p := func(kv ...any) []engine.Property {
		out := []engine.Property{}
		for i := 0; i < len(kv); i += 2 {
			out = append(out, engine.Property{Key: kv[i].(string), Value: kv[i+1]})
		}
		return out
	}

	mustQuery(t, db, "CREATE (a:P {x: 1})-[:T {w: 2}]->(b:Q)", nil)
	b := next()
	if len(b.Changes) != 3 || b.TS == 0 || b.CommittedAt.IsZero() {
		t.Fatalf("create: %+v", b)
	}
	a, q, r := find(b, engine.ChangeNode, "P"), find(b, engine.ChangeNode, "Q"), find(b, engine.ChangeRelationship, "")
	if a.Op != engine.ChangeCreated || a.Before != nil || !reflect.DeepEqual(a.After, p("x", int64(1))) {
		t.Fatalf("node a: %+v", a)
	}
	if r.Op != engine.ChangeCreated || r.Type != "T" || r.Start != a.ID || r.End != q.ID ||
		!slices.Equal(r.StartLabels, []string{"P"}) || !slices.Equal(r.EndLabels, []string{"Q"}) || !reflect.DeepEqual(r.After, p("w", int64(2))) {
		t.Fatalf("relationship: %+v", r)
	}

	mustQuery(t, db, "MATCH (n:P) SET n.x = 1", nil) // no-op
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"CREATE (:Tmp)", "MATCH (n:Tmp) DELETE n"} {
		res, err := tx.Query(t.Context(), s, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "CREATE INDEX FOR (n:P) ON (n.x)", nil)
	mustQuery(t, db, "MATCH (n:P) SET n:Z, n.x = 5 REMOVE n:P", nil)
	b = next()
	u := find(b, engine.ChangeNode, "Z")
	if len(b.Changes) != 1 || u.Op != engine.ChangeUpdated || !slices.Equal(u.Labels, []string{"Z"}) ||
		!slices.Equal(u.LabelsAdded, []string{"Z"}) || !slices.Equal(u.LabelsRemoved, []string{"P"}) ||
		!reflect.DeepEqual(u.Before, p("x", int64(1))) || !reflect.DeepEqual(u.After, p("x", int64(5))) {
		t.Fatalf("update (the no-op, the transient node and the index gave nothing): %+v", b.Changes)
	}

	mustQuery(t, db, "MATCH (n:Z) DETACH DELETE n", nil)
	b = next()
	d, dr := find(b, engine.ChangeNode, "Z"), find(b, engine.ChangeRelationship, "")
	if len(b.Changes) != 2 || d.Op != engine.ChangeDeleted || d.After != nil || !reflect.DeepEqual(d.Before, p("x", int64(5))) ||
		dr.Op != engine.ChangeDeleted || dr.Type != "T" || !slices.Equal(dr.StartLabels, []string{"Z"}) || !reflect.DeepEqual(dr.Before, p("w", int64(2))) {
		t.Fatalf("detach delete: %+v", b.Changes)
	}

	mustQuery(t, db, "UNWIND range(0, $n) AS i CREATE (:Big {i: i})", engine.Params{"n": int64(engine.MaxChangesPerCommit)})
	b = next()
	want := &engine.BulkChange{NodesCreated: engine.MaxChangesPerCommit + 1, Labels: []string{"Big"}}
	if len(b.Changes) != 0 || !reflect.DeepEqual(b.Bulk, want) {
		t.Fatalf("bulk: %d changes, %+v", len(b.Changes), b.Bulk)
	}
	if bb, err := big.Next(t.Context()); err != nil || bb.Bulk == nil || bb.LSN != b.LSN || bb.TS != b.TS {
		t.Fatalf("(:Big) feed: %+v, %v", bb, err)
	}
	mustQuery(t, db, "CREATE (:Other)", nil)
	if ob, err := other.Next(t.Context()); err != nil || len(ob.Changes) != 1 || ob.Changes[0].Labels[0] != "Other" {
		t.Fatalf("(:Other) feed got %+v, %v: the bulk commit is not its", ob, err)
	}
}
