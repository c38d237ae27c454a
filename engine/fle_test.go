package engine_test

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// Field-level encryption (docs/encryption.md): keys, fields, who reads
// plaintext, and what is stored.

func openFLE(t *testing.T, dir string) *engine.DB {
	t.Helper()
	db, err := engine.Open(dir, engine.Options{Encryption: tdeKey(7)})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func fleGraph(t *testing.T, db *engine.DB) {
	t.Helper()
	fleData(t, db)
	fleDeclare(t, db)
}

func fleData(t *testing.T, db *engine.DB) {
	t.Helper()
	mustQuery(t, db, `CREATE (:Person {name: 'ann', ssn: '111-22-3333', age: 40}), (:Person {name: 'bob', ssn: '444-55-6666', age: 50}),
		(:Company {name: 'acme', ssn: 'plain-co'})`, nil)
}

// fleDeclare makes key pii (deterministic), grants it to hr and
// encrypts Person.ssn under it.
func fleDeclare(t *testing.T, db *engine.DB) {
	t.Helper()
	admin := adminOf(db)
	mustQuery(t, admin, `CALL quiver.fle.createKey('pii', {deterministic: true})`, nil)
	mustQuery(t, admin, `CALL quiver.fle.grantKey('pii', 'hr')`, nil)
	mustQuery(t, admin, `CALL quiver.fle.encryptProperty('Person', 'ssn', 'pii')`, nil)
}

func TestFieldEncryptionReads(t *testing.T) {
	db := openFLE(t, t.TempDir())
	defer db.Close()
	fleGraph(t, db)
	hr := readerOf(db, nil, "hr")
	other := readerOf(db, nil, "reader")
	q := `MATCH (p:Person) RETURN p.name, p.ssn ORDER BY p.name`
	if got := strings.Join(mustQuery(t, hr, q, nil), ";"); got != "'ann' | '111-22-3333';'bob' | '444-55-6666'" {
		t.Fatalf("hr reads %s", got)
	}
	if got := strings.Join(mustQuery(t, other, q, nil), ";"); got != "'ann' | null;'bob' | null" {
		t.Fatalf("reader reads %s", got)
	}
	// The admin holds no grant of the key: it reads null too.
	if got := strings.Join(mustQuery(t, adminOf(db), q, nil), ";"); got != "'ann' | null;'bob' | null" {
		t.Fatalf("admin reads %s", got)
	}
	// A label that does not encrypt the property keeps its plaintext.
	if got := strings.Join(mustQuery(t, other, `MATCH (c:Company) RETURN c.ssn`, nil), ";"); got != "'plain-co'" {
		t.Fatalf("company reads %s", got)
	}
	// Equality, whole nodes, properties() and map projections.
	if got := strings.Join(mustQuery(t, hr, `MATCH (p:Person) WHERE p.ssn = $s RETURN p.name`, engine.Params{"s": "444-55-6666"}), ";"); got != "'bob'" {
		t.Fatalf("hr equality: %s", got)
	}
	if got := strings.Join(mustQuery(t, other, `MATCH (p:Person) WHERE p.ssn = $s RETURN p.name`, engine.Params{"s": "444-55-6666"}), ";"); got != "" {
		t.Fatalf("reader equality: %s", got)
	}
	if got := strings.Join(mustQuery(t, hr, `MATCH (p:Person {name: 'ann'}) RETURN properties(p).ssn, p{.*}.ssn, p`, nil), ";"); !strings.Contains(got, "'111-22-3333' | '111-22-3333'") || !strings.Contains(got, "ssn: '111-22-3333'") {
		t.Fatalf("hr whole node: %s", got)
	}
	got := strings.Join(mustQuery(t, other, `MATCH (p:Person {name: 'ann'}) RETURN properties(p), keys(p), p`, nil), ";")
	if strings.Contains(got, "ssn") || strings.Contains(got, "$fle1$") {
		t.Fatalf("reader whole node: %s", got)
	}
}

func TestFieldEncryptionDynamicAccessAndGraphs(t *testing.T) {
	db := openFLE(t, t.TempDir())
	defer db.Close()
	fleGraph(t, db)
	hr, other := readerOf(db, nil, "hr"), readerOf(db, nil, "reader")
	q := `MATCH (p:Person {name: 'ann'}) WITH p, 'ssn' AS k RETURN p[k]`
	if got := strings.Join(mustQuery(t, hr, q, nil), ";"); got != "'111-22-3333'" {
		t.Fatalf("hr p[k]: %s", got)
	}
	if got := strings.Join(mustQuery(t, other, q, nil), ";"); got != "null" {
		t.Fatalf("reader p[k]: %s", got)
	}
	// Each graph has its own keys and fields.
	admin := adminOf(db)
	mustQuery(t, admin, `CREATE GRAPH g`, nil)
	mustQuery(t, admin, `USE g CREATE (:Person {name: 'gus', ssn: '123-45-6789'})`, nil)
	mustQuery(t, admin, `USE g CALL quiver.fle.createKey('gk')`, nil)
	mustQuery(t, admin, `USE g CALL quiver.fle.encryptProperty('Person', 'ssn', 'gk')`, nil)
	if got := mustQuery(t, admin, `CALL quiver.fle.listKeys() YIELD name RETURN name`, nil); strings.Join(got, ";") != "'pii'" {
		t.Fatalf("the default graph's keys: %v", got)
	}
	if got := mustQuery(t, admin, `USE g CALL quiver.fle.listFields() YIELD key RETURN key`, nil); strings.Join(got, ";") != "'gk'" {
		t.Fatalf("graph g's fields: %v", got)
	}
	if got := mustQuery(t, admin, `USE g MATCH (p:Person) RETURN p.ssn`, nil); strings.Join(got, ";") != "null" {
		t.Fatalf("graph g without the grant: %v", got)
	}
	mustQuery(t, admin, `USE g CALL quiver.fle.grantKey('gk', 'admin')`, nil)
	if got := mustQuery(t, admin, `USE g MATCH (p:Person) RETURN p.ssn`, nil); strings.Join(got, ";") != "'123-45-6789'" {
		t.Fatalf("graph g with the grant: %v", got)
	}
}
