package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
	"github.com/quiverdb/quiver/frontend/metrics"
)

// observedServer is the HTTP API and the metrics listener over one
// database, wired as quiver serve wires them.
type observedServer struct {
	api, metrics string // base URLs
	reg          *metrics.Registry
	listener     *metrics.Listener
}

func startObserved(t *testing.T) *observedServer {
	t.Helper()
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg := metrics.NewRegistry()
	t.Cleanup(reg.Close)
	mln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ml := metrics.NewListener(reg, log)
	serveUntilCleanup(t, func() error { return ml.Serve(mln) }, ml.Shutdown)
	db, err := engine.Open(dir, engine.Options{Observer: reg, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg.SetDatabase(db)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := qhttp.New(qhttp.Config{Logger: log, Version: "test", Conns: reg, Stats: reg,
		Metrics: reg.WritePrometheus, NodeID: metrics.NodeID(dir), DataDir: dir}, db)
	serveUntilCleanup(t, func() error { return srv.Serve(ln) }, srv.Shutdown)
	return &observedServer{api: "http://" + ln.Addr().String(), metrics: "http://" + mln.Addr().String(), reg: reg, listener: ml}
}

func serveUntilCleanup(t *testing.T, serve func() error, shutdown func(context.Context) error) {
	done := make(chan error, 1)
	go func() { done <- serve() }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			t.Error(err)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// oneShot sends each request on a connection of its own, so that the
// test knows how many connections it opened.
var oneShot = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func post(t *testing.T, url, body string) (int, map[string]any) {
	t.Helper()
	resp, err := oneShot.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return resp.StatusCode, out
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := oneShot.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// samples reads the unlabelled samples of an exposition (and the
// histogram's +Inf bucket as name_inf), checking it has the ten families.
func samples(t *testing.T, text string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	families := 0
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "# TYPE ") {
			families++
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, value, _ := strings.Cut(line, " ")
		if name == `quiver_query_duration_seconds_bucket{le="+Inf"}` {
			name = "quiver_query_duration_seconds_inf"
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("sample %q", line)
		}
		out[name] = v
	}
	if families != 10 {
		t.Fatalf("%d families:\n%s", families, text)
	}
	return out
}

// A known workload over HTTP moves every metric by exactly what it did:
// N good and M failing auto-commit queries, K committed, J rolled back
// and L failed explicit transactions, over C connections.
func TestMetricsCountHTTPWorkload(t *testing.T) {
	s := startObserved(t)
	if status, body := get(t, s.metrics+"/ready"); status != 503 || body != `{"ready":false}` {
		t.Fatalf("ready before SetReady: %d %s", status, body)
	}
	s.listener.SetReady(true)
	status, text := get(t, s.metrics+"/metrics")
	if status != 200 {
		t.Fatalf("/metrics: %d", status)
	}
	before := samples(t, text)

	const N, M, K, J, L = 6, 4, 3, 2, 2
	conns := 0
	query := func(q string, wantStatus int) {
		t.Helper()
		conns++
		if status, out := post(t, s.api+"/api/v1/query", `{"query":`+strconv.Quote(q)+`}`); status != wantStatus {
			t.Fatalf("%s: %d %v", q, status, out)
		}
	}
	for i := range N {
		query("CREATE (:P {i: "+strconv.Itoa(i)+"})-[:R]->(:P)", 200)
	}
	for i := range M {
		if i%2 == 0 {
			query("MATCH (n RETURN n", 400)
		} else {
			query("RETURN 1/0", 400)
		}
	}
	txn := func(stmt, end string, wantStatus int) {
		t.Helper()
		conns += 3
		status, out := post(t, s.api+"/api/v1/transaction/begin", "")
		id, _ := out["transaction_id"].(string)
		if status != 200 || id == "" {
			t.Fatalf("begin: %d %v", status, out)
		}
		status, out = post(t, s.api+"/api/v1/transaction/"+id+"/query", `{"query":`+strconv.Quote(stmt)+`}`)
		if failing := strings.Contains(stmt, "1/0"); (status != 200) != failing {
			t.Fatalf("%s in a transaction: %d %v", stmt, status, out)
		}
		if status, out := post(t, s.api+"/api/v1/transaction/"+id+"/"+end, ""); status != wantStatus {
			t.Fatalf("%s: %d %v", end, status, out)
		}
	}
	for range K {
		txn("CREATE (:T)", "commit", 200)
	}
	for range J {
		txn("CREATE (:T)", "rollback", 200)
	}
	for range L {
		txn("RETURN 1/0", "commit", 500)
	}

	// Every connection has closed (the server sees it a moment after the
	// client: polled, with a bound); then scrape both endpoints.
	deadline := time.Now().Add(10 * time.Second)
	for s.reg.ActiveConnections() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d connections still counted", s.reg.ActiveConnections())
		}
		time.Sleep(5 * time.Millisecond)
	}
	status, text = get(t, s.metrics+"/metrics")
	if status != 200 {
		t.Fatalf("/metrics: %d", status)
	}
	after := samples(t, text)
	checkPromtool(t, text)
	delta := func(name string) float64 { return after[name] - before[name] }
	for name, want := range map[string]float64{
		"quiver_queries_total":                N + M + K + J + L,
		"quiver_queries_failed_total":         M + L,
		"quiver_query_duration_seconds_count": N + M + K + J + L,
		"quiver_query_duration_seconds_inf":   N + M + K + J + L,
		"quiver_transactions_total":           N + M + K + J + L,
		"quiver_transactions_failed_total":    M + L,
		"quiver_connections_total":            float64(conns),
		"quiver_connections_active":           0,
		"quiver_nodes_total":                  2*N + K,
		"quiver_edges_total":                  N,
	} {
		if got := delta(name); got != want {
			t.Errorf("%s moved by %v, want %v", name, got, want)
		}
	}
	if after["quiver_memory_bytes"] <= 0 {
		t.Error("quiver_memory_bytes not measured")
	}

	// The main listener's /api/v1/metrics is the same exposition, seen
	// from one more open connection.
	status, apiText := get(t, s.api+"/api/v1/metrics")
	if status != 200 {
		t.Fatalf("/api/v1/metrics: %d", status)
	}
	api := samples(t, apiText)
	checkPromtool(t, apiText)
	if api["quiver_connections_total"] != after["quiver_connections_total"]+1 || api["quiver_connections_active"] != 1 ||
		api["quiver_queries_total"] != after["quiver_queries_total"] {
		t.Errorf("/api/v1/metrics disagrees with /metrics:\n%s", apiText)
	}

	// /api/v1/status: counts, rate and connections, measured.
	status, body := get(t, s.api+"/api/v1/status")
	var st struct {
		NodeID     string `json:"node_id"`
		Role       string `json:"role"`
		Statistics struct {
			TotalNodes         int64   `json:"total_nodes"`
			TotalRelationships int64   `json:"total_relationships"`
			ActiveConnections  int64   `json:"active_connections"`
			QueriesPerSecond   float64 `json:"queries_per_second"`
		} `json:"statistics"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil || status != 200 {
		t.Fatalf("status: %d %s %v", status, body, err)
	}
	if st.Statistics.TotalNodes != 2*N+K || st.Statistics.TotalRelationships != N || st.Statistics.ActiveConnections != 1 ||
		st.Statistics.QueriesPerSecond <= 0 || st.Role != "primary" || len(st.NodeID) != 36 {
		t.Errorf("status: %s", body)
	}
}

// checkPromtool runs `promtool check metrics` on an exposition; a missing
// promtool fails the test (make promtool installs it). Its two naming
// findings on the contract's gauges named *_total are expected.
func checkPromtool(t *testing.T, text string) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is not on PATH: run `make promtool` (it installs Debian's prometheus package), then the test again")
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 3) {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(bytes.TrimSpace(out))) {
		if line = strings.TrimSpace(line); line != `quiver_nodes_total non-counter metrics should not have "_total" suffix` &&
			line != `quiver_edges_total non-counter metrics should not have "_total" suffix` {
			t.Fatalf("promtool check metrics: %q", line)
		}
	}
}
