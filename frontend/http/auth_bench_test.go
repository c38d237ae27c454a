package http

import (
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
)

// BenchmarkReadRequestAuth is one `RETURN 1` request through the handler,
// without the network, with authentication off and with each scheme on:
// what checking credentials adds to a request (a bearer token's HMAC and
// lookups, an API key's SHA-256, Basic answered by its cache).
func BenchmarkReadRequestAuth(b *testing.B) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := auth.Open(auth.Config{DB: db, Enabled: true, AdminPassword: "bench-admin-password", BootstrapOut: io.Discard,
		Hash: auth.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	toks, _, err := svc.Login(context.Background(), "admin", "bench-admin-password", "127.0.0.1")
	if err != nil {
		b.Fatal(err)
	}
	p, err := svc.Authenticate(context.Background(), auth.Credentials{Username: "admin", Password: "bench-admin-password"})
	if err != nil {
		b.Fatal(err)
	}
	res, err := db.Query(engine.WithPrincipal(context.Background(), p), "CALL dbms.security.createApiKey('admin', 'bench')", nil)
	if err != nil {
		b.Fatal(err)
	}
	batch, err := res.Next()
	if err != nil || batch == nil {
		b.Fatal(err)
	}
	key := batch.Cols[1].Str[0]
	res.Close()
	for _, c := range []struct {
		name, header, value string
		svc                 *auth.Service
	}{
		{"off", "", "", nil},
		{"bearer", "Authorization", "Bearer " + toks.AccessToken, svc},
		{"api_key", "X-API-Key", key, svc},
		{"basic", "Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:bench-admin-password")), svc},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := New(Config{Logger: quiet, Auth: c.svc}, db)
			benchQueryRequests(b, s, `{"query":"RETURN 1 AS x"}`, c.header, c.value)
		})
	}
}
