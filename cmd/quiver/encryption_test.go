package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

func keyFlagsOf(t *testing.T, args ...string) keyFlags {
	t.Helper()
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	k := defineKeyFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestEncryptionKeySources(t *testing.T) {
	raw := bytes.Repeat([]byte{0xa5}, 32)
	dir := t.TempDir()
	hexFile, rawFile := filepath.Join(dir, "hex.key"), filepath.Join(dir, "raw.key")
	os.WriteFile(hexFile, []byte(strings.Repeat("a5", 32)+"\n"), 0o600)
	os.WriteFile(rawFile, raw, 0o600)
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == EnvEncryptionKey {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		name string
		args []string
		env  string
	}{
		{"hex file", []string{"--encryption-key-file", hexFile}, ""},
		{"raw file", []string{"--encryption-key-file", rawFile}, ""},
		{"command", []string{"--encryption-key-command", "printf " + base64.StdEncoding.EncodeToString(raw)}, ""},
		{"environment", nil, base64.StdEncoding.EncodeToString(raw)},
	} {
		enc, err := keyFlagsOf(t, c.args...).encryption(env(c.env))
		if err != nil || enc == nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if k, err := enc.Key(); err != nil || !bytes.Equal(k, raw) {
			t.Fatalf("%s: key %x, %v", c.name, k, err)
		}
	}
	if enc, err := keyFlagsOf(t).encryption(env("")); enc != nil || err != nil {
		t.Fatalf("no source: %v %v", enc, err)
	}
	if _, err := keyFlagsOf(t, "--encryption-key-file", hexFile).encryption(env("x")); err == nil || !strings.Contains(err.Error(), "one way") {
		t.Fatalf("two sources: %v", err)
	}
	if _, err := keyFlagsOf(t, "--encryption-key-command", "echo short").encryption(env("")); err == nil || !strings.Contains(err.Error(), "32 bytes") {
		t.Fatalf("a short key: %v", err)
	}
}

// TestEncryptCommand encrypts a plain data directory offline and opens it
// with the key.
func TestEncryptCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "db")
	db, err := engine.Open(dir, engine.Options{Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query(context.Background(), "CREATE (:Secret {v: 'clear-text-value'})", nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	key := filepath.Join(t.TempDir(), "k")
	os.WriteFile(key, []byte(strings.Repeat("0f", 32)), 0o600)
	var out, errb bytes.Buffer
	if code := runEncrypt([]string{"--data-dir", dir, "--encryption-key-file", key}, &out, &errb); code != 0 {
		t.Fatalf("quiver encrypt: %d, %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "encrypted ") {
		t.Fatalf("output %q", out.String())
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("clear-text-value")) {
				t.Errorf("%s holds the value in clear", p)
			}
		}
		return err
	})
	enc, _ := keyFlagsOf(t, "--encryption-key-file", key).encryption(func(string) string { return "" })
	db, err = engine.Open(dir, engine.Options{Encryption: enc, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if code := runEncrypt([]string{"--data-dir", dir, "--encryption-key-file", key}, &out, &errb); code != 1 {
		t.Fatalf("quiver encrypt on an open directory: exit %d", code)
	}
	if code := runEncrypt([]string{"--data-dir", dir}, &out, &errb); code != 2 {
		t.Fatalf("quiver encrypt without a key: exit %d", code)
	}
}

// TestImportEncrypted: quiver import with a key leaves an encrypted
// directory that opens with the key and holds no value in clear.
func TestImportEncrypted(t *testing.T) {
	work := t.TempDir()
	csv := filepath.Join(work, "p.csv")
	os.WriteFile(csv, []byte("id,name\n1,imported-clear-value\n2,imported-clear-value\n"), 0o600)
	key := filepath.Join(work, "k")
	os.WriteFile(key, []byte(strings.Repeat("3c", 32)), 0o600)
	dir := filepath.Join(work, "db")
	a, err := parseImport([]string{"--data-dir", dir, "--nodes", "P=" + csv, "--encryption-key-file", key})
	if err != nil {
		t.Fatal(err)
	}
	null, _ := os.Open(os.DevNull)
	defer null.Close()
	if err := runImport(a, null, null); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("imported-clear-value")) {
				t.Errorf("%s holds the value in clear", p)
			}
		}
		return err
	})
	db, err := engine.Open(dir, engine.Options{Encryption: a.encryption, Logger: quietLog})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Query(context.Background(), "MATCH (p:P {name: 'imported-clear-value'}) RETURN p.id", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.Next()
	if err != nil || b == nil || b.Rows() != 2 {
		t.Fatalf("the imported nodes: %v %v", b, err)
	}
	res.Close()
}
