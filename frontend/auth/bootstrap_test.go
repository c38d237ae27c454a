package auth

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

func TestBootstrapWithPassword(t *testing.T) {
	var out bytes.Buffer
	f := newFixture(t, "", func(c *Config) { c.BootstrapOut = &out })
	if out.Len() != 0 {
		t.Fatalf("printed %q with a given password", out.String())
	}
	p := f.admin()
	if p.Privileges != engine.PrivAll {
		t.Fatalf("admin: %+v", p)
	}
	if ev := f.events("create_user"); len(ev) != 1 || ev[0].Outcome != engine.OutcomeSuccess {
		t.Fatalf("bootstrap audit: %+v", ev)
	}
}

func TestBootstrapGeneratedPasswordPrintedOnce(t *testing.T) {
	var out bytes.Buffer
	f := newFixture(t, t.TempDir(), func(c *Config) { c.AdminPassword = ""; c.BootstrapOut = &out })
	m := regexp.MustCompile(`^created the admin user "admin" with password (\S+); change it with CALL dbms.security.changePassword\n$`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("printed %q", out.String())
	}
	if _, err := f.s.Authenticate(context.Background(), Credentials{Username: "admin", Password: m[1]}); err != nil {
		t.Fatalf("the printed password: %v", err)
	}
	out.Reset()
	f.reopen()
	if out.Len() != 0 {
		t.Fatalf("second start printed %q", out.String())
	}
	if _, err := f.s.Authenticate(context.Background(), Credentials{Username: "admin", Password: m[1]}); err != nil {
		t.Fatalf("after reopen: %v", err)
	}
}

func TestBootstrapRefusesShortPassword(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := Open(Config{DB: db, Enabled: true, AdminPassword: "short", Hash: cheap}); err == nil {
		t.Fatal("a 5-byte admin password was accepted")
	}
}

func TestPersistence(t *testing.T) {
	dir := t.TempDir()
	f := newFixture(t, dir)
	f.user("fay", "fay-password", "editor")
	key := f.mustCall(f.admin(), "CALL dbms.security.createApiKey('fay', 'k')")[0][1].(string)
	live := f.login("fay", "fay-password")
	replayed := f.login("fay", "fay-password")
	if _, err := f.s.Refresh(context.Background(), replayed.RefreshToken, ""); err != nil {
		t.Fatal(err)
	}
	usedOnce := f.login("fay", "fay-password")
	next, err := f.s.Refresh(context.Background(), usedOnce.RefreshToken, "")
	if err != nil {
		t.Fatal(err)
	}
	// the replay revokes that session before the restart
	if _, err := f.s.Refresh(context.Background(), replayed.RefreshToken, ""); err == nil {
		t.Fatal("replay accepted")
	}
	// The signing key is a system record (replicated with the rest on a
	// cluster), not a file of the data directory.
	if _, ok := f.db.SystemGet(signKeyRecord); !ok {
		t.Fatal("no signing key record")
	}
	if _, err := os.Stat(filepath.Join(dir, "auth", "token.key")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("token.key: %v", err)
	}

	f.reopen()
	ctx := context.Background()
	if p, err := f.s.Authenticate(ctx, Credentials{Username: "fay", Password: "fay-password"}); err != nil || p.Privileges != engine.PrivRead|engine.PrivWrite {
		t.Fatalf("user after reopen: %+v %v", p, err)
	}
	if _, err := f.s.Authenticate(ctx, Credentials{APIKey: key}); err != nil {
		t.Fatalf("key after reopen: %v", err)
	}
	if _, err := f.bearer(live.AccessToken); err != nil {
		t.Fatalf("access token after reopen (same signing key): %v", err)
	}
	if _, err := f.s.Refresh(ctx, live.RefreshToken, ""); err != nil {
		t.Fatalf("refresh after reopen: %v", err)
	}
	if _, err := f.s.Refresh(ctx, replayed.RefreshToken, ""); err == nil {
		t.Fatal("a revoked refresh token works after reopen")
	}
	// A used token is still a replay after the restart.
	if _, err := f.s.Refresh(ctx, usedOnce.RefreshToken, ""); err == nil {
		t.Fatal("a used refresh token works after reopen")
	}
	if _, err := f.s.Refresh(ctx, next.RefreshToken, ""); err == nil {
		t.Fatal("the replay after reopen did not revoke the session")
	}
}

func TestInMemoryKeysDiffer(t *testing.T) {
	a := newFixture(t, "")
	b := newFixture(t, "")
	tok := a.login("admin", "admin-password")
	if _, err := b.bearer(tok.AccessToken); err == nil {
		t.Fatal("a token of one in-memory server works on another")
	}
}

// A data directory from before the key was a record keeps it in
// auth/token.key: the server adopts it, so its tokens stay valid, and
// keeps the record from then on.
func TestSigningKeyAdopted(t *testing.T) {
	dir := t.TempDir()
	key := bytes.Repeat([]byte{7}, signKeyLen)
	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "auth", "token.key"), key, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, dir)
	if !bytes.Equal(f.s.signingKey(), key) {
		t.Fatal("the old key file was not adopted")
	}
	tok := f.login("admin", "admin-password")
	if err := os.Remove(filepath.Join(dir, "auth", "token.key")); err != nil {
		t.Fatal(err)
	}
	f.reopen()
	if _, err := f.bearer(tok.AccessToken); err != nil {
		t.Fatalf("a token after the file is gone: %v", err)
	}
}
