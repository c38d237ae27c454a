package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// schemaModel is what the index and the UNIQUE constraint on :Person(id)
// should be after a sequence of CREATE and DROP statements.
type schemaModel struct {
	index      bool // index_person_id, made by CREATE INDEX
	constraint bool // constraint_person_id_unique
	owns       bool // the constraint checks through an index of its own (it found none)
}

// The four schema statements on :Person(id), and what each does to the
// model: the code it answers ("" for success).
var schemaSteps = []struct {
	name, text string
	apply      func(m *schemaModel) string
}{
	{"create index", "CREATE INDEX FOR (n:Person) ON (n.id)", func(m *schemaModel) string {
		if m.index || (m.constraint && m.owns) {
			return "42S01" // the name, or a BTREE index on the key, exists
		}
		m.index = true
		return ""
	}},
	{"drop index", "DROP INDEX index_person_id", func(m *schemaModel) string {
		switch {
		case !m.index:
			return "42S02"
		case m.constraint && !m.owns:
			return "42000" // the constraint checks through it
		}
		m.index = false
		return ""
	}},
	{"create constraint", "CREATE CONSTRAINT ON (n:Person) ASSERT n.id IS UNIQUE", func(m *schemaModel) string {
		if m.constraint {
			return "42S01"
		}
		m.constraint, m.owns = true, !m.index
		return ""
	}},
	{"drop constraint", "DROP CONSTRAINT constraint_person_id_unique", func(m *schemaModel) string {
		if !m.constraint {
			return "42S02"
		}
		m.constraint = false
		return ""
	}},
}

// Every order of creating and dropping an index and a UNIQUE constraint
// on the same property, with no restart, with a clean restart (close and
// reopen: the schema comes back from the checkpoint) or with a kill
// (the schema comes back from the log) after every statement. After each
// statement and each restart the schema is the model's, the constraint
// holds exactly while it exists, and writes to the label (and to others)
// succeed. Dropping the index a constraint adopted used to be allowed, and
// every later write then failed with an internal error.
func TestSchemaOrdersIndexAndConstraint(t *testing.T) {
	perms := permutations([]int{0, 1, 2, 3})
	for _, restart := range []string{"none", "close", "kill"} {
		for _, perm := range perms {
			var names []string
			for _, i := range perm {
				names = append(names, strings.ReplaceAll(schemaSteps[i].name, " ", "-"))
			}
			t.Run(restart+"/"+strings.Join(names, ","), func(t *testing.T) {
				runSchemaOrder(t, perm, restart)
			})
		}
	}
}

func runSchemaOrder(t *testing.T, perm []int, restart string) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	ctx := context.Background()
	next := int64(100)
	mustQuery(t, db, "CREATE (:Person {id: 1}), (:Person {id: 2})", nil)
	var m schemaModel
	steps := perm
	if restart == "none" {
		// Each step twice: the second time it fails (exists, or is gone)
		// and must change nothing.
		steps = append(perm, perm...)
	}
	for _, i := range steps {
		step := schemaSteps[i]
		want := step.apply(&m)
		_, err := db.Query(ctx, step.text, nil)
		if got := codeOf(err); got != want {
			t.Fatalf("%s: got %q (%v), want %q", step.text, got, err, want)
		}
		if want == "42000" && !strings.Contains(err.Error(), "constraint_person_id_unique") {
			t.Fatalf("%s: the refusal does not name the constraint: %v", step.text, err)
		}
		checkSchemaModel(t, db, m, step.text, &next)
		if restart != "none" {
			if restart == "kill" {
				engine.Abandon(db)
			} else if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if db, err = engine.Open(dir, engine.Options{}); err != nil {
				t.Fatalf("reopen after %s: %v", step.text, err)
			}
			checkSchemaModel(t, db, m, step.text+", then a restart ("+restart+")", &next)
		}
	}
}

// checkSchemaModel compares SHOW INDEXES and SHOW CONSTRAINTS with m, and
// writes: a new id always succeeds, an existing one fails with 23000
// exactly while the constraint exists.
func checkSchemaModel(t *testing.T, db *engine.DB, m schemaModel, after string, next *int64) {
	t.Helper()
	var wantIx, wantC []string
	if m.index {
		wantIx = append(wantIx, "'index_person_id' | 'BTREE' | 'Person' | 'id' | 'NODE' | 'ONLINE' | 100.0")
	}
	if m.constraint && m.owns {
		wantIx = append(wantIx, "'constraint_person_id_unique' | 'BTREE' | 'Person' | 'id' | 'NODE' | 'ONLINE' | 100.0")
	}
	if m.constraint {
		wantC = append(wantC, "'constraint_person_id_unique' | 'UNIQUE' | 'Person' | 'id'")
	}
	if got := mustQuery(t, db, "SHOW INDEXES", nil); fmt.Sprint(got) != fmt.Sprint(sorted(wantIx)) {
		t.Fatalf("after %s: indexes %v, want %v", after, got, sorted(wantIx))
	}
	if got := mustQuery(t, db, "CALL db.constraints() YIELD name, type, label, properties RETURN name, type, label, properties", nil); fmt.Sprint(got) != fmt.Sprint(wantC) {
		t.Fatalf("after %s: constraints %v, want %v", after, got, wantC)
	}
	ctx := context.Background()
	*next++
	for _, q := range []string{
		fmt.Sprintf("CREATE (:Person {id: %d})", *next),
		fmt.Sprintf("MATCH (n:Person {id: %d}) SET n.id = %d", *next, *next+1000),
		fmt.Sprintf("CREATE (:Other {id: 1}), (:Other {id: %d})", *next),
	} {
		if _, err := db.Query(ctx, q, nil); err != nil {
			t.Fatalf("after %s: %s: %v", after, q, err)
		}
	}
	_, err := db.Query(ctx, "CREATE (:Person {id: 1, dup: true})", nil)
	switch {
	case m.constraint && codeOf(err) != "23000":
		t.Fatalf("after %s: a duplicate id: got %v, want 23000", after, err)
	case !m.constraint && err != nil:
		t.Fatalf("after %s: a duplicate id without a constraint: %v", after, err)
	case !m.constraint:
		mustQuery(t, db, "MATCH (n:Person {dup: true}) DELETE n", nil)
	}
	if got := mustQuery(t, db, "MATCH (n:Person {id: 1}) RETURN count(*)", nil); fmt.Sprint(got) != "[1]" {
		t.Fatalf("after %s: %v nodes with id 1, want 1", after, got)
	}
	if err := db.Check(); err != nil {
		t.Fatalf("after %s: %v", after, err)
	}
}

func permutations(xs []int) [][]int {
	if len(xs) <= 1 {
		return [][]int{append([]int(nil), xs...)}
	}
	var out [][]int
	for i := range xs {
		rest := append(append([]int(nil), xs[:i]...), xs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]int{xs[i]}, p...))
		}
	}
	return out
}

// A UNIQUE constraint checks through the same index after a restart: the
// one it created, even when a HASH index on its key was created later
// (a checkpoint's schema is rebuilt plain indexes first, and the
// constraint used to adopt the HASH index then), or the one it adopted.
func TestSchemaConstraintKeepsItsIndexAcrossRestart(t *testing.T) {
	for _, restart := range []string{"close", "kill"} {
		t.Run(restart, func(t *testing.T) {
			dir := t.TempDir()
			db, err := engine.Open(dir, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			mustQuery(t, db, "CREATE CONSTRAINT c1 ON (n:Person) ASSERT n.id IS UNIQUE", nil)
			mustQuery(t, db, "CREATE HASH INDEX h1 FOR (n:Person) ON (n.id)", nil)
			mustQuery(t, db, "CREATE INDEX b2 FOR (n:Pet) ON (n.id)", nil)
			mustQuery(t, db, "CREATE HASH INDEX h2 FOR (n:Pet) ON (n.id)", nil)
			mustQuery(t, db, "CREATE CONSTRAINT c2 ON (n:Pet) ASSERT n.id IS UNIQUE", nil)
			if restart == "kill" {
				engine.Abandon(db)
			} else if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if db, err = engine.Open(dir, engine.Options{}); err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, c := range []struct{ q, want string }{
				{"DROP INDEX c1", "42000"}, // c1's own
				{"DROP INDEX b2", "42000"}, // adopted by c2
				{"DROP INDEX h1", ""},
				{"DROP INDEX h2", ""},
			} {
				if _, err := db.Query(context.Background(), c.q, nil); codeOf(err) != c.want {
					t.Errorf("%s after a restart (%s): got %v, want %q", c.q, restart, err, c.want)
				}
			}
			mustQuery(t, db, "CREATE (:Person {id: 1}), (:Pet {id: 1})", nil)
			for _, q := range []string{"CREATE (:Person {id: 1})", "CREATE (:Pet {id: 1})"} {
				if _, err := db.Query(context.Background(), q, nil); codeOf(err) != "23000" {
					t.Errorf("%s: got %v, want 23000", q, err)
				}
			}
		})
	}
}
