package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// What field-level encryption stores and lets out: exported files, change
// events and audit events carry no plaintext of an encrypted field, every
// write path seals, and it all survives a restart.

// secrets are the plaintext values the tests write to encrypted fields.
var secrets = []string{"111-22-3333", "444-55-6666", "777-88-9999", "123-45-6789", "555-00-1111"}

// noSecrets fails when s holds a secret.
func noSecrets(t *testing.T, what, s string) {
	t.Helper()
	for _, x := range secrets {
		if strings.Contains(s, x) {
			t.Fatalf("%s carries the plaintext %s: %.300s", what, x, s)
		}
	}
}

// exportText exports the graph as CSV and returns every file's text.
func exportText(t *testing.T, db *engine.DB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := db.Export(engine.ExportOptions{Dir: dir, Format: "csv"}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		b.Write(raw)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestFieldEncryptionWritePaths(t *testing.T) {
	dir := t.TempDir()
	audit := &auditLog{}
	db, err := engine.Open(dir, engine.Options{Encryption: tdeKey(7), Auditor: audit})
	if err != nil {
		t.Fatal(err)
	}
	fleData(t, db)
	feed, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	fleDeclare(t, db) // rewrites the two existing values
	hr := readerOf(db, nil, "hr", "editor")
	// Every write path: CREATE, SET, SET +=, MERGE, a label added later.
	mustQuery(t, hr, `CREATE (:Person {name: 'cy', ssn: $s})`, engine.Params{"s": secrets[2]})
	mustQuery(t, hr, `MATCH (p:Person {name: 'ann'}) SET p.ssn = $s`, engine.Params{"s": secrets[3]})
	mustQuery(t, hr, `MATCH (p:Person {name: 'bob'}) SET p += {ssn: $s}`, engine.Params{"s": secrets[1]})
	mustQuery(t, hr, `MERGE (p:Person {name: 'dee'}) ON CREATE SET p.ssn = $s`, engine.Params{"s": secrets[4]})
	mustQuery(t, hr, `CREATE (:Visitor {name: 'eve', ssn: 'visitor-ssn'})`, nil)
	mustQuery(t, hr, `MATCH (v:Visitor) SET v:Person`, nil)
	mustQuery(t, db, `CREATE (:End)`, nil)
	want := "'ann' | '123-45-6789';'bob' | '444-55-6666';'cy' | '777-88-9999';'dee' | '555-00-1111';'eve' | 'visitor-ssn'"
	check := func(db *engine.DB) {
		t.Helper()
		hr := readerOf(db, nil, "hr")
		if got := strings.Join(mustQuery(t, hr, `MATCH (p:Person) RETURN p.name, p.ssn ORDER BY p.name`, nil), ";"); got != want {
			t.Fatalf("hr reads %s", got)
		}
		text := exportText(t, db)
		noSecrets(t, "the export", text)
		if strings.Contains(text, "visitor-ssn") || strings.Count(text, "$fle1$pii$") != 5 {
			t.Fatalf("the export holds %d sealed values: %.500s", strings.Count(text, "$fle1$pii$"), text)
		}
		if !strings.Contains(text, "plain-co") {
			t.Fatal("the company's unencrypted value is not exported as it is")
		}
	}
	check(db)
	batches, err := collect(context.Background(), feed)
	if err != nil {
		t.Fatal(err)
	}
	events := fmt.Sprintf("%v", batches)
	noSecrets(t, "the change feed", events)
	if !strings.Contains(events, "<encrypted>") {
		t.Fatalf("the declaration's rewrite shows no redacted value: %.500s", events)
	}
	var audited strings.Builder
	for _, e := range audit.take() {
		fmt.Fprintf(&audited, "%+v\n", e)
	}
	noSecrets(t, "the audit trail", audited.String())
	for _, a := range []string{"fle_createKey", "fle_grantKey", "fle_encryptProperty"} {
		if !strings.Contains(audited.String(), a) {
			t.Fatalf("%s is not audited: %s", a, audited.String())
		}
	}
	// After a restart (the log replayed), and after a checkpoint (the
	// base read back), reads and writes go on as before.
	db.Close()
	db = openFLE(t, dir)
	check(db)
	mustQuery(t, db, `CHECKPOINT`, nil)
	db.Close()
	db = openFLE(t, dir)
	defer db.Close()
	check(db)
	mustQuery(t, readerOf(db, nil, "hr", "editor"), `CREATE (:Person {name: 'fay', ssn: '000-00-0000'})`, nil)
	if n := strings.Count(exportText(t, db), "$fle1$pii$"); n != 6 {
		t.Fatalf("after the restarts a new value is not sealed: %d sealed values", n)
	}
}
