package http

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestSchemaErrors: a constraint violation is 409 with 23000
// CONSTRAINT_VIOLATION and a message naming the value; schema name errors
// are 400 with 42S01 / 42S02.
func TestSchemaErrors(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	q := func(query string) (int, map[string]any) {
		status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"`+query+`"}`)
		return status, out
	}
	for _, s := range []string{
		"CREATE CONSTRAINT uid ON (u:User) ASSERT u.id IS UNIQUE",
		"CREATE (:User {id: 7})",
	} {
		if status, out := q(s); status != 200 {
			t.Fatalf("%s: %d %v", s, status, out)
		}
	}
	cases := []struct {
		query, code, category string
		status                int
	}{
		{"CREATE (:User {id: 7.0})", "23000", "CONSTRAINT_VIOLATION", 409},
		{"CREATE CONSTRAINT uid ON (u:User) ASSERT EXISTS(u.id)", "42S01", "OBJECT_EXISTS", 400},
		{"DROP INDEX nope", "42S02", "OBJECT_NOT_FOUND", 400},
	}
	for _, c := range cases {
		status, out := q(c.query)
		e, ok := out["error"].(map[string]any)
		if status != c.status || !ok || e["code"] != c.code || e["category"] != c.category {
			t.Errorf("%s: %d %v, want %d %s", c.query, status, out, c.status, c.code)
		}
		if c.code == "23000" && ok && !strings.Contains(e["message"].(string), "id = 7") {
			t.Errorf("violation message %q does not name the value", e["message"])
		}
	}
}

// TestIndexInPlans: EXPLAIN shows index_used on the seek and PROFILE the
// operator's index, in the HTTP answers.
func TestIndexInPlans(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	for _, s := range []string{
		"CREATE (:User {id: 1}), (:User {id: 2})",
		"CREATE HASH INDEX uid FOR (u:User) ON (u.id)",
	} {
		if status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"`+s+`"}`); status != 200 {
			t.Fatalf("%s: %d %v", s, status, out)
		}
	}
	q := `{"query":"MATCH (u:User {id: 2}) RETURN u.id"}`
	status, out, _ := call(t, "POST", base+"/api/v1/query/explain", q)
	if text := jsonString(out); status != 200 || !strings.Contains(text, `"index_used":"uid"`) {
		t.Errorf("explain: %d %s", status, text)
	}
	status, out, _ = call(t, "POST", base+"/api/v1/query/profile", q)
	if text := jsonString(out); status != 200 || !strings.Contains(text, `"index":"uid"`) {
		t.Errorf("profile: %d %s", status, text)
	}
}
