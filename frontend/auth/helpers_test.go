package auth

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// cheap is an argon2id cost that keeps tests fast.
var cheap = HashParams{MemoryKiB: 64, Time: 1, Threads: 1}

// clock is a settable clock for Config.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	t     testing.TB
	dir   string
	db    *engine.DB
	s     *Service
	audit *AuditLog
	clk   *clock
	cfg   Config
}

// newFixture opens a DB in dir ("" in memory) and a Service with
// authentication on and an admin whose password is "admin-password".
func newFixture(t testing.TB, dir string, mod ...func(*Config)) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: dir, clk: &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	f.cfg = Config{Enabled: true, AdminPassword: "admin-password", Hash: cheap, Now: f.clk.Now}
	for _, m := range mod {
		m(&f.cfg)
	}
	f.open()
	return f
}

func (f *fixture) open() {
	t := f.t
	t.Helper()
	db, err := engine.Open(f.dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	al, err := OpenAuditLog("", AuditOptions{Now: f.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	f.db, f.audit = db, al
	cfg := f.cfg
	cfg.DB, cfg.Audit = db, al
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.s = s
	t.Cleanup(func() { f.close() })
}

func (f *fixture) close() {
	if f.s == nil {
		return
	}
	_ = f.s.Close()
	_ = f.db.Close()
	_ = f.audit.Close()
	f.s = nil
}

// reopen closes the DB and opens it again with a new Service.
func (f *fixture) reopen() {
	f.t.Helper()
	f.close()
	f.open()
}

func (f *fixture) admin() *engine.Principal {
	p, err := f.s.Authenticate(context.Background(), Credentials{Username: "admin", Password: "admin-password", Address: "127.0.0.1:1"})
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// call runs a statement as p and returns its rows.
func (f *fixture) call(p *engine.Principal, q string) ([][]any, error) {
	ctx := context.Background()
	if p != nil {
		ctx = engine.WithPrincipal(ctx, p)
	}
	res, err := f.db.Query(ctx, q, nil)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var rows [][]any
	for {
		b, err := res.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			return rows, nil
		}
		vector.ForRows(b.Sel, b.Len, func(r int) {
			row := make([]any, len(b.Cols))
			for i, c := range b.Cols {
				row[i] = c.Get(r)
			}
			rows = append(rows, row)
		})
	}
}

func (f *fixture) mustCall(p *engine.Principal, q string) [][]any {
	f.t.Helper()
	rows, err := f.call(p, q)
	if err != nil {
		f.t.Fatalf("%s: %v", q, err)
	}
	return rows
}

// user creates a user through the procedure.
func (f *fixture) user(name, pw string, roles ...string) {
	f.t.Helper()
	f.mustCall(f.admin(), "CALL dbms.security.createUser('"+name+"', '"+pw+"', ['"+strings.Join(roles, "','")+"'])")
}

func (f *fixture) login(name, pw string) Tokens {
	f.t.Helper()
	tok, _, err := f.s.Login(context.Background(), name, pw, "127.0.0.1:5")
	if err != nil {
		f.t.Fatalf("login %s: %v", name, err)
	}
	return tok
}

func (f *fixture) bearer(tok string) (*engine.Principal, error) {
	return f.s.Authenticate(context.Background(), Credentials{Authorization: "Bearer " + tok, Address: "127.0.0.1:5"})
}

// events returns the audit events with the given action, oldest first.
func (f *fixture) events(action string) []engine.AuditEvent {
	recs := f.audit.Recent(MaxRecent)
	var out []engine.AuditEvent
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].Action == action {
			out = append(out, recs[i].AuditEvent)
		}
	}
	return out
}

// wantCode fails unless err is an engine error with code.
func wantCode(t *testing.T, err error, code string) *engine.Error {
	t.Helper()
	e, ok := engine.AsError(err)
	if !ok || e.Code != code {
		t.Fatalf("got %v (%T), want an engine error %s", err, err, code)
	}
	return e
}

func wantLimit(t *testing.T, err error) *LimitError {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || le.RetryAfter <= 0 {
		t.Fatalf("got %v, want a *LimitError", err)
	}
	return le
}
