package metrics_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
	"github.com/quiverdb/quiver/frontend/metrics"
)

func getWith(t *testing.T, url string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(body)
}

// With authentication on, /metrics needs credentials (Bearer, X-API-Key
// or Basic, any role); the probes stay open. Until SetAuth, a listener
// that requires authentication answers /metrics 503.
func TestListenerAuth(t *testing.T) {
	db, err := engine.Open("", engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc, err := auth.Open(auth.Config{DB: db, Enabled: true, AdminPassword: "admin-password", BootstrapOut: io.Discard,
		Hash: auth.HashParams{MemoryKiB: 64, Time: 1, Threads: 1}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	admin, err := svc.Authenticate(context.Background(), auth.Credentials{Username: "admin", Password: "admin-password"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := engine.WithPrincipal(context.Background(), admin)
	res, err := db.Query(ctx, "CALL dbms.security.createUser('scraper', 'scraper-password', ['reader'])", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	res, err = db.Query(ctx, "CALL dbms.security.createApiKey('scraper', 'prometheus') YIELD api_key RETURN api_key", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.Next()
	if err != nil || b == nil || b.Rows() != 1 {
		t.Fatalf("createApiKey: %v", err)
	}
	apiKey := b.Cols[0].Get(b.Row(0)).(string)
	res.Close()
	tokens, _, err := svc.Login(context.Background(), "scraper", "scraper-password", "127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}

	reg := metrics.NewRegistry()
	l, base := startListener(t, reg)
	l.RequireAuth()
	l.SetReady(true)
	if status, h, _ := getWith(t, base+"/metrics", nil); status != 503 || h.Get("Retry-After") == "" {
		t.Fatalf("before SetAuth: %d %v", status, h)
	}
	l.SetAuth(svc)
	for _, path := range []string{"/health", "/ready", "/live"} {
		if status, _, body := getWith(t, base+path, nil); status != 200 {
			t.Errorf("%s without credentials: %d %s", path, status, body)
		}
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("scraper:scraper-password"))
	for name, h := range map[string]map[string]string{
		"none":           nil,
		"wrong password": {"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("scraper:nope-nope"))},
		"bad token":      {"Authorization": "Bearer x.y.z"},
		"bad key":        {"X-API-Key": "qk_nope"},
		"other scheme":   {"Authorization": "Digest abc"},
	} {
		status, hdr, body := getWith(t, base+"/metrics", h)
		var e struct {
			Error struct{ Code, Category, Message string } `json:"error"`
		}
		_ = json.Unmarshal([]byte(body), &e)
		if status != 401 || e.Error.Code != engine.CodeAuth || e.Error.Category != engine.CatAuth || e.Error.Message == "" ||
			!strings.Contains(hdr.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(hdr.Get("WWW-Authenticate"), "Basic") {
			t.Errorf("%s: %d %v %s", name, status, hdr, body)
		}
	}
	for name, h := range map[string]map[string]string{
		"basic":  {"Authorization": basic},
		"bearer": {"Authorization": "Bearer " + tokens.AccessToken},
		"key":    {"X-API-Key": apiKey},
	} {
		if status, _, body := getWith(t, base+"/metrics", h); status != 200 || !strings.Contains(body, "quiver_") {
			t.Errorf("%s: %d %.200s", name, status, body)
		}
	}
	// Wrong passwords hit the login limiter: 429 in the contract's shape.
	wrong := map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("scraper:wrong-password"))}
	for i := 0; ; i++ {
		status, hdr, body := getWith(t, base+"/metrics", wrong)
		if status == 401 && i < 50 {
			continue
		}
		var e struct {
			Error struct {
				Code       string
				RetryAfter int64 `json:"retry_after"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(body), &e)
		if status != 429 || e.Error.Code != "RATE_LIMIT_EXCEEDED" || e.Error.RetryAfter < 1 || hdr.Get("Retry-After") == "" {
			t.Fatalf("after %d failures: %d %v %s", i, status, hdr, body)
		}
		break
	}
}
