package engine_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

const tdeSecret = "plaintext-marker-7f3a9c"

func tdeKey(b byte) *engine.Encryption {
	k := bytes.Repeat([]byte{b}, 32)
	return &engine.Encryption{Key: func() ([]byte, error) { return k, nil }}
}

// tdeWrite fills a database with nodes carrying tdeSecret, some in a
// checkpoint (base files) and some in the WAL only.
func tdeWrite(t *testing.T, db *engine.DB) {
	t.Helper()
	mustQuery(t, db, "UNWIND range(1, 300) AS i CREATE (:Person {name: $s + toString(i), i: i})", engine.Params{"s": tdeSecret})
	mustQuery(t, db, "CHECKPOINT", nil)
	mustQuery(t, db, "UNWIND range(301, 400) AS i CREATE (:Person {name: $s + toString(i), i: i})", engine.Params{"s": tdeSecret})
}

func tdeCount(t *testing.T, db *engine.DB) string {
	t.Helper()
	return strings.Join(mustQuery(t, db, "MATCH (p:Person) WHERE p.name STARTS WITH $s RETURN count(*)", engine.Params{"s": tdeSecret}), ",")
}

// noPlaintext fails when any file under dir holds the marker.
func noPlaintext(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		n++
		if bytes.Contains(b, []byte(tdeSecret[:12])) {
			t.Errorf("%s holds the plaintext", p)
		}
		return nil
	})
	return n
}

func TestEncryptionAtRest(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Encryption: tdeKey(1)})
	if err != nil {
		t.Fatal(err)
	}
	tdeWrite(t, db)
	want := tdeCount(t, db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if files := noPlaintext(t, dir); files < 3 {
		t.Fatalf("only %d files in the data directory", files)
	}
	// The right key reopens it: base and WAL both read back.
	db, err = engine.Open(dir, engine.Options{Encryption: tdeKey(1)})
	if err != nil {
		t.Fatal(err)
	}
	if got := tdeCount(t, db); got != want || want != "400" {
		t.Fatalf("reopened: %s people, want %s (400)", got, want)
	}
	db.Close()
	// A wrong key, or none, is refused.
	if _, err := engine.Open(dir, engine.Options{Encryption: tdeKey(2)}); err == nil || !strings.Contains(err.Error(), "encryption key does not match data directory (key id") {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := engine.Open(dir, engine.Options{}); err == nil || !strings.Contains(err.Error(), "is encrypted") {
		t.Fatalf("no key: %v", err)
	}
}

func TestEncryptionRefusesPlainDirAndEncrypts(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tdeWrite(t, db)
	db.Close()
	if _, err := engine.Open(dir, engine.Options{Encryption: tdeKey(3)}); err == nil || !strings.Contains(err.Error(), "quiver encrypt") {
		t.Fatalf("a key for a plain directory: %v", err)
	}
	n, err := engine.EncryptDataDir(dir, bytes.Repeat([]byte{3}, 32), nil)
	if err != nil || n < 3 {
		t.Fatalf("EncryptDataDir: %d files, %v", n, err)
	}
	noPlaintext(t, dir)
	db, err = engine.Open(dir, engine.Options{Encryption: tdeKey(3)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := tdeCount(t, db); got != "400" {
		t.Fatalf("encrypted: %s people, want 400", got)
	}
	if _, err := engine.EncryptDataDir(dir, bytes.Repeat([]byte{3}, 32), nil); err == nil {
		t.Fatal("encrypted the directory of an open database")
	}
}

func TestEncryptionTamperedFile(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Encryption: tdeKey(4)})
	if err != nil {
		t.Fatal(err)
	}
	tdeWrite(t, db)
	db.Close()
	// Spoil the biggest file of the base.
	var victim string
	var size int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if fi, e := os.Stat(p); e == nil && fi.Mode().IsRegular() && fi.Size() > size && !strings.Contains(p, "wal") && filepath.Base(p) != "keyring" {
			victim, size = p, fi.Size()
		}
		return nil
	})
	b, _ := os.ReadFile(victim)
	b[len(b)/2] ^= 0x10
	os.WriteFile(victim, b, 0o600)
	_, err = engine.Open(dir, engine.Options{Encryption: tdeKey(4)})
	if err == nil || !strings.Contains(err.Error(), "authentication failed at block") || !strings.Contains(err.Error(), filepath.Base(victim)) {
		t.Fatalf("tampered %s: %v", victim, err)
	}
}

func TestTDEProcedures(t *testing.T) {
	dir := t.TempDir()
	key := bytes.Repeat([]byte{5}, 32)
	enc := &engine.Encryption{Key: func() ([]byte, error) { return key, nil }}
	audit := &auditLog{}
	db, err := engine.Open(dir, engine.Options{Encryption: enc, Auditor: audit})
	if err != nil {
		t.Fatal(err)
	}
	tdeWrite(t, db)
	st := mustQuery(t, db, "CALL tde.status() YIELD state, algorithm, generation, filesPending RETURN state, algorithm, generation, filesPending", nil)
	if len(st) != 1 || !strings.Contains(st[0], "encrypted") || !strings.Contains(st[0], "AES-256-GCM") {
		t.Fatalf("status: %v", st)
	}
	key = bytes.Repeat([]byte{6}, 32) // the operator put a new key in the key's source
	rot := mustQuery(t, db, "CALL tde.rotateMasterKey()", nil)
	if len(rot) != 1 {
		t.Fatalf("rotate: %v", rot)
	}
	mustQuery(t, db, "CALL tde.reencrypt()", nil)
	deadline := time.Now().Add(30 * time.Second)
	for {
		st = mustQuery(t, db, "CALL tde.status() YIELD state, generation, filesRewritten RETURN state, generation, filesRewritten", nil)
		if !strings.Contains(st[0], "reencrypting") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still re-encrypting: %v", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(st[0], "2") {
		t.Fatalf("after reencrypt: %v", st)
	}
	mustQuery(t, db, "CREATE (:Person {name: $s + 'x'})", engine.Params{"s": tdeSecret})
	actions := map[string]bool{}
	for _, e := range audit.take() {
		if e.Category == "admin" && e.Outcome == engine.OutcomeSuccess {
			actions[e.Action] = true
		}
	}
	for _, a := range []string{"tde_status", "tde_rotate_master_key", "tde_reencrypt"} {
		if !actions[a] {
			t.Errorf("no audit event %s: %v", a, actions)
		}
	}
	db.Close()
	if _, err := engine.Open(dir, engine.Options{Encryption: tdeKey(5)}); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("the old key after the rotation: %v", err)
	}
	db, err = engine.Open(dir, engine.Options{Encryption: tdeKey(6)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := tdeCount(t, db); got != "401" {
		t.Fatalf("after rotation and re-encryption: %s people, want 401", got)
	}
	noPlaintext(t, dir)
}

// TestEncryptionOnGraph: a graph other than the default lives in the
// encrypted directory, encrypted once (its directory is not given a
// keyring of its own), and reopens with the key.
func TestEncryptionOnGraph(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Encryption: tdeKey(8)})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "CREATE GRAPH g", nil)
	g, _, err := db.Graph(t.Context(), "g")
	if err != nil {
		t.Fatal(err)
	}
	tdeWrite(t, g)
	db.Close()
	noPlaintext(t, dir)
	keyrings := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "keyring" {
			keyrings++
		}
		return err
	})
	if keyrings != 1 {
		t.Fatalf("%d keyrings in the data directory, want 1", keyrings)
	}
	db, err = engine.Open(dir, engine.Options{Encryption: tdeKey(8)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if g, _, err = db.Graph(t.Context(), "g"); err != nil {
		t.Fatal(err)
	}
	if got := tdeCount(t, g); got != "400" {
		t.Fatalf("graph g reopened: %s people, want 400", got)
	}
	if st := mustQuery(t, g, "CALL tde.status() YIELD state RETURN state", nil); len(st) != 1 || !strings.Contains(st[0], "encrypted") {
		t.Fatalf("tde.status on graph g: %v", st)
	}
}
