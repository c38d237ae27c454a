package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

func copySummary(t *testing.T, db *engine.DB, q string) engine.Summary {
	t.Helper()
	res, err := db.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if _, err := drain(res); err != nil {
		t.Fatal(err)
	}
	return res.Summary()
}

// TestCopyFrom loads nodes then relationships into a running database,
// each file as one transaction, and checks that a bad file changes
// nothing and that files outside the import directory are refused.
func TestCopyFrom(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{
		"persons.csv": importPersons,
		"knows.csv":   importKnows,
		"bad.csv":     "from,to,since\n1,2,1\n1,7,2\n",
		"more.csv":    "id,name\n5,Eve\n1,Dup\n",
	})
	db := openTestDBWith(t, engine.Options{ImportDir: in})
	mustQuery(t, db, "CREATE (:Other {name: 'pre-existing'})", nil)
	s := copySummary(t, db, "COPY Person FROM 'persons.csv'")
	if s.NodesCreated != 4 || !s.Write {
		t.Fatalf("summary %+v", s)
	}
	s = copySummary(t, db, "COPY KNOWS FROM 'knows.csv'")
	if s.RelationshipsCreated != 5 {
		t.Fatalf("summary %+v", s)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, want string }{
		{"MATCH (n) RETURN count(*)", "5"},
		{"MATCH (p:Person {id: 3}) RETURN p.name, p.score, toString(p.born)", "'Cy, Jr' | 3.25 | '1970-12-31'"},
		{"MATCH (a:Person {id: 1})<-[:KNOWS]-(b) RETURN b.id ORDER BY b.id", "1,3"},
		{"MATCH ()-[k:KNOWS]->() RETURN sum(k.since)", "10038"},
	} {
		if got := strings.Join(mustQuery(t, db, c.q, nil), ","); got != c.want {
			t.Errorf("%s: got %s, want %s", c.q, got, c.want)
		}
	}
	// A bad row anywhere: nothing of the file is created.
	_, err := db.Query(context.Background(), "COPY KNOWS FROM 'bad.csv'", nil)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeData || !strings.Contains(err.Error(), `bad.csv:3:2 (column to): unknown node key "7"`) {
		t.Fatalf("bad file: %v", err)
	}
	if got := mustQuery(t, db, "MATCH ()-[k:KNOWS]->() RETURN count(k)", nil); got[0] != "5" {
		t.Fatalf("bad file left %s relationships", got[0])
	}
	// Node files load as given: a key already in the graph is not checked
	// (a UNIQUE constraint would be), one repeated in the file is.
	writeFiles(t, in, map[string]string{"dup.csv": "id\n8\n8\n"})
	if _, err := db.Query(context.Background(), "COPY Person FROM 'dup.csv'", nil); err == nil || !strings.Contains(err.Error(), "dup.csv:3:1 (column id): duplicate node key 8") {
		t.Fatalf("duplicate: %v", err)
	}
	// Key 1 then names two nodes: a relationship file may not use it.
	if s := copySummary(t, db, "COPY Person FROM 'more.csv'"); s.NodesCreated != 2 {
		t.Fatalf("summary %+v", s)
	}
	writeFiles(t, in, map[string]string{"amb.csv": "from,to\n5,2\n1,2\n", "eve.csv": "from,to\n5,2\n"})
	_, err = db.Query(context.Background(), "COPY KNOWS FROM 'amb.csv'", nil)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeData || !strings.Contains(err.Error(), "amb.csv:3:1 (column from): the node key names several nodes") {
		t.Fatalf("ambiguous key: %v", err)
	}
	if s := copySummary(t, db, "COPY KNOWS FROM 'eve.csv'"); s.RelationshipsCreated != 1 {
		t.Fatalf("summary %+v", s)
	}
	for _, q := range []string{"COPY Person FROM '../x.csv'", "COPY Person FROM '/etc/passwd'"} {
		_, err := db.Query(context.Background(), q, nil)
		if e, ok := errs.As(err); !ok || e.Code != errs.CodePermission {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := db.Query(context.Background(), "COPY Person FROM 'missing.csv'", nil); err == nil || !strings.Contains(err.Error(), "missing.csv") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestCopyFromDisabled(t *testing.T) {
	db := openTestDB(t)
	_, err := db.Query(context.Background(), "COPY Person FROM 'persons.csv'", nil)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodePermission || !strings.Contains(err.Error(), "--import-dir") {
		t.Fatalf("got %v", err)
	}
}
