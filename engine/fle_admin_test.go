package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

// Field-level encryption's procedures, policies, index seeks and errors.

// indexesUsed lists the indexes a plan reads, and the plan as text.
func indexesUsed(t *testing.T, a as, q string, params engine.Params) ([]string, string) {
	t.Helper()
	res, err := a.Query(context.Background(), "EXPLAIN "+q, params)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	used := planIndexes(res.Plan().Root, nil)
	return used, fmt.Sprintf("%+v", res.Plan())
}

func TestFieldEncryptionDeterministicSeek(t *testing.T) {
	db := openFLE(t, t.TempDir())
	defer db.Close()
	fleGraph(t, db)
	admin := adminOf(db)
	mustQuery(t, admin, `CREATE HASH INDEX by_ssn FOR (p:Person) ON (p.ssn)`, nil)
	hr, other := readerOf(db, nil, "hr"), readerOf(db, nil, "reader")
	q := `MATCH (p:Person) WHERE p.ssn = $s RETURN p.name`
	params := engine.Params{"s": "444-55-6666"}
	used, text := indexesUsed(t, hr, q, params)
	if len(used) != 1 || used[0] != "by_ssn" {
		t.Fatalf("the equality on a deterministic field does not seek its index: %v\n%s", used, text)
	}
	noSecrets(t, "EXPLAIN", text)
	for _, c := range []struct {
		who  as
		q    string
		want string
	}{
		{hr, q, "'bob'"},
		{other, q, ""},
		{hr, `MATCH (p:Person {ssn: $s}) RETURN p.name`, "'bob'"},
		{hr, `MATCH (p:Person) WHERE p.ssn = $s RETURN p.name`, "'bob'"},
		// Company does not encrypt ssn: its plaintext reads as it is.
		{other, `MATCH (c:Company) WHERE c.ssn = 'plain-co' RETURN c.name`, "'acme'"},
	} {
		if got := strings.Join(mustQuery(t, c.who, c.q, params), ";"); got != c.want {
			t.Fatalf("%s as %v: %s, want %s", c.q, c.who.p.Roles, got, c.want)
		}
	}
	// A randomized key seals equal values differently: no seek, and the
	// filter still finds the value.
	mustQuery(t, admin, `CALL quiver.fle.createKey('rnd')`, nil)
	mustQuery(t, admin, `CALL quiver.fle.grantKey('rnd', 'hr')`, nil)
	mustQuery(t, admin, `CALL quiver.fle.encryptProperty('Person', 'age', 'rnd')`, nil)
	mustQuery(t, admin, `CREATE INDEX by_age FOR (p:Person) ON (p.age)`, nil)
	if used, text := indexesUsed(t, hr, `MATCH (p:Person) WHERE p.age = 50 RETURN p.name`, nil); len(used) != 0 {
		t.Fatalf("a randomized field's index is used: %v\n%s", used, text)
	}
	for _, c := range []struct{ q, want string }{
		{`MATCH (p:Person) WHERE p.age = 50 RETURN p.name`, "'bob'"},
		{`MATCH (p:Person) WHERE p.age > 45 RETURN p.name`, "'bob'"},
		{`MATCH (p:Person) RETURN sum(p.age), max(p.age), count(p.age)`, "90 | 50 | 2"},
		{`MATCH (p:Person) RETURN p.name ORDER BY p.age DESC LIMIT 1`, "'bob'"},
	} {
		if got := strings.Join(mustQuery(t, hr, c.q, nil), ";"); got != c.want {
			t.Fatalf("%s: %s, want %s", c.q, got, c.want)
		}
	}
	if got := strings.Join(mustQuery(t, other, `MATCH (p:Person) RETURN count(p.age), max(p.age)`, nil), ";"); got != "0 | null" {
		t.Fatalf("a reader without the key aggregates %s", got)
	}
}

func TestFieldEncryptionDeniedError(t *testing.T) {
	db := openFLE(t, t.TempDir())
	defer db.Close()
	fleData(t, db)
	admin := adminOf(db)
	mustQuery(t, admin, `CALL quiver.fle.createKey('k')`, nil)
	mustQuery(t, admin, `CALL quiver.fle.encryptProperty('Person', 'ssn', 'k', {onDenied: 'error'})`, nil)
	other := readerOf(db, nil, "reader")
	for _, q := range []string{`MATCH (p:Person) RETURN p.ssn`, `MATCH (p:Person) RETURN properties(p)`, `MATCH (p:Person) RETURN p{.*}`,
		`MATCH (p:Person) WHERE p.ssn STARTS WITH '1' RETURN p.name`} {
		e := queryErr(t, other, q, nil)
		if e.Code != engine.CodePermission || !strings.Contains(e.Message, "encrypted under key k") {
			t.Fatalf("%s: %v, want 42501", q, e)
		}
		noSecrets(t, "the error", e.Error())
	}
	// A whole node leaves the field out: the result cannot fail midway.
	if got := strings.Join(mustQuery(t, other, `MATCH (p:Person {name: 'ann'}) RETURN p`, nil), ";"); strings.Contains(got, "ssn") {
		t.Fatalf("the whole node shows the field: %s", got)
	}
	// Unencrypted properties read as before.
	if got := strings.Join(mustQuery(t, other, `MATCH (p:Person) RETURN p.name ORDER BY p.name`, nil), ";"); got != "'ann';'bob'" {
		t.Fatalf("names: %s", got)
	}
}

func TestFieldEncryptionDecryptAndDrop(t *testing.T) {
	db := openFLE(t, t.TempDir())
	defer db.Close()
	fleGraph(t, db)
	admin := adminOf(db)
	e := queryErr(t, admin, `CALL quiver.fle.dropKey('pii')`, nil)
	if e.Code != engine.CodeInvalidParam || !strings.Contains(e.Message, "still seals Person.ssn") {
		t.Fatalf("dropping a key in use: %v", e)
	}
	if got := strings.Join(mustQuery(t, admin, `CALL quiver.fle.listFields()`, nil), ";"); got != "'Person' | 'ssn' | 'pii' | true | 'null'" {
		t.Fatalf("listFields: %s", got)
	}
	if got := strings.Join(mustQuery(t, admin, `CALL quiver.fle.listKeys() YIELD name, deterministic, roles, fields RETURN name, deterministic, roles, fields`, nil), ";"); got != "'pii' | true | ['hr'] | ['Person.ssn']" {
		t.Fatalf("listKeys: %s", got)
	}
	if got := strings.Join(mustQuery(t, admin, `CALL quiver.fle.decryptProperty('Person', 'ssn') YIELD rewritten RETURN rewritten`, nil), ";"); got != "2" {
		t.Fatalf("decryptProperty rewrote %s", got)
	}
	other := readerOf(db, nil, "reader")
	if got := strings.Join(mustQuery(t, other, `MATCH (p:Person) RETURN p.ssn ORDER BY p.ssn`, nil), ";"); got != "'111-22-3333';'444-55-6666'" {
		t.Fatalf("after decryptProperty: %s", got)
	}
	if strings.Contains(exportText(t, db), "$fle1$") {
		t.Fatal("a sealed value is left after decryptProperty")
	}
	mustQuery(t, admin, `CALL quiver.fle.revokeKey('pii', 'hr')`, nil)
	mustQuery(t, admin, `CALL quiver.fle.dropKey('pii')`, nil)
	if got := mustQuery(t, admin, `CALL quiver.fle.listKeys()`, nil); len(got) != 0 {
		t.Fatalf("keys after dropKey: %v", got)
	}
}

func TestFieldEncryptionErrors(t *testing.T) {
	plain, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if e := queryErr(t, adminOf(plain), `CALL quiver.fle.createKey('k')`, nil); e.Code != engine.CodeNotSupported || !strings.Contains(e.Message, "encryption at rest") {
		t.Fatalf("without encryption at rest: %v", e)
	}
	db := openFLE(t, t.TempDir())
	defer db.Close()
	fleGraph(t, db)
	admin := adminOf(db)
	for _, c := range []struct{ q, code, msg string }{
		{`CALL quiver.fle.createKey('pii')`, errs.CodeObjectExists, `data key "pii" already exists`},
		{`CALL quiver.fle.createKey('1bad')`, engine.CodeInvalidParam, "invalid key name"},
		{`CALL quiver.fle.createKey('k', {deterministic: 'yes'})`, engine.CodeInvalidParam, "deterministic"},
		{`CALL quiver.fle.createKey('k', {other: true})`, engine.CodeInvalidParam, "the options are {deterministic"},
		{`CALL quiver.fle.encryptProperty('Person', 'ssn', 'pii')`, errs.CodeObjectExists, "already encrypted"},
		{`CALL quiver.fle.encryptProperty('Person', 'x', 'nokey')`, errs.CodeNoObject, `data key "nokey" does not exist`},
		{`CALL quiver.fle.encryptProperty('Person', 'x', 'pii', {onDenied: 'maybe'})`, engine.CodeInvalidParam, "onDenied"},
		{`CALL quiver.fle.encryptProperty('', 'x', 'pii')`, engine.CodeInvalidParam, "non-empty"},
		{`CALL quiver.fle.decryptProperty('Person', 'name')`, errs.CodeNoObject, "not an encrypted field"},
		{`CALL quiver.fle.grantKey('nokey', 'hr')`, errs.CodeNoObject, "does not exist"},
		{`CALL quiver.fle.grantKey('pii', 'bad role')`, engine.CodeInvalidParam, "invalid role name"},
		{`CALL quiver.fle.dropKey('nokey')`, errs.CodeNoObject, "does not exist"},
	} {
		e := queryErr(t, admin, c.q, nil)
		if e.Code != c.code || !strings.Contains(e.Message, c.msg) {
			t.Fatalf("%s: %v, want %s %q", c.q, e, c.code, c.msg)
		}
	}
	if e := queryErr(t, readerOf(db, nil, "hr"), `CALL quiver.fle.listKeys()`, nil); e.Code != engine.CodePermission {
		t.Fatalf("a non-admin lists keys: %v", e)
	}
	tx, err := db.BeginTransaction(engine.TransactionOptions{Principal: admin.p})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Query(engine.WithPrincipal(context.Background(), admin.p), `CALL quiver.fle.createKey('k2')`, nil); err == nil {
		t.Fatal("createKey ran in a transaction")
	} else if e, _ := engine.AsError(err); e.Code != engine.CodeTransaction {
		t.Fatalf("createKey in a transaction: %v", err)
	}
}

// A transaction whose snapshot predates a field's declaration wrote
// plaintext: its commit fails with 40001 and nothing of it is stored.
func TestFieldEncryptionDeclaredDuringTransaction(t *testing.T) {
	db := openFLE(t, t.TempDir())
	defer db.Close()
	fleData(t, db)
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, tx, `CREATE (:Person {name: 'late', ssn: '777-88-9999'})`, nil)
	fleDeclare(t, db)
	_, err = tx.Commit()
	if e, ok := engine.AsError(err); !ok || e.Code != engine.CodeSerialization {
		t.Fatalf("commit after the declaration: %v, want 40001", err)
	}
	noSecrets(t, "the export", exportText(t, db))
	if got := mustQuery(t, db, `MATCH (p:Person {name: 'late'}) RETURN p`, nil); len(got) != 0 {
		t.Fatalf("the failed transaction's node exists: %v", got)
	}
}

// The schema a field cannot be encrypted under, both ways round, and
// MERGE on an encrypted field.
func TestFieldEncryptionSchema(t *testing.T) {
	db := openFLE(t, t.TempDir())
	defer db.Close()
	fleGraph(t, db) // Person.ssn under deterministic pii
	admin := adminOf(db)
	mustQuery(t, admin, `CALL quiver.fle.createKey('rnd')`, nil)
	mustQuery(t, admin, `CREATE CONSTRAINT name_unique FOR (p:Person) REQUIRE p.name IS UNIQUE`, nil)
	mustQuery(t, admin, `CREATE FULLTEXT INDEX bio FOR (p:Person) ON EACH [p.bio]`, nil)
	for _, c := range []struct{ q, msg string }{
		{`CALL quiver.fle.encryptProperty('Person', 'name', 'rnd')`, "the uniqueness constraint name_unique covers it"},
		{`CALL quiver.fle.encryptProperty('Person', 'bio', 'pii')`, "the FULLTEXT index bio covers it"},
		{`CREATE FULLTEXT INDEX ssn_text FOR (p:Person) ON EACH [p.ssn]`, "the field is encrypted"},
	} {
		if e := queryErr(t, admin, c.q, nil); e.Code != engine.CodeNotSupported || !strings.Contains(e.Message, c.msg) {
			t.Fatalf("%s: %v, want 0A000 %q", c.q, e, c.msg)
		}
	}
	mustQuery(t, admin, `CALL quiver.fle.encryptProperty('Person', 'age', 'rnd')`, nil)
	if e := queryErr(t, admin, `CREATE CONSTRAINT age_unique FOR (p:Person) REQUIRE p.age IS UNIQUE`, nil); e.Code != engine.CodeNotSupported || !strings.Contains(e.Message, "not deterministic") {
		t.Fatalf("a uniqueness constraint on a randomized field: %v", e)
	}
	// A deterministic field keeps its uniqueness constraint working.
	mustQuery(t, admin, `CREATE CONSTRAINT ssn_unique FOR (p:Person) REQUIRE p.ssn IS UNIQUE`, nil)
	e := queryErr(t, admin, `CREATE (:Person {name: 'dup', ssn: '111-22-3333'})`, nil)
	if e.Code != errs.CodeConstraint {
		t.Fatalf("a duplicate of a deterministic unique field: %v", e)
	}
	noSecrets(t, "the constraint error", e.Error())
	// MERGE finds the node by the decrypted value for a holder of the key.
	hr := readerOf(db, nil, "hr", "editor")
	if got := strings.Join(mustQuery(t, hr, `MERGE (p:Person {ssn: '444-55-6666'}) RETURN p.name`, nil), ";"); got != "'bob'" {
		t.Fatalf("MERGE on the encrypted field: %s", got)
	}
	if got := strings.Join(mustQuery(t, admin, `MATCH (p:Person) RETURN count(*)`, nil), ";"); got != "2" {
		t.Fatalf("MERGE created a node: %s people", got)
	}
}
