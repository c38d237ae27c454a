package metrics_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	vm "github.com/VictoriaMetrics/metrics"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/metrics"
)

// wantNames are the interface contract's ten metrics, with the prefix
// Quiver uses.
var wantNames = []string{
	"quiver_connections_active",
	"quiver_connections_total",
	"quiver_edges_total",
	"quiver_memory_bytes",
	"quiver_nodes_total",
	"quiver_queries_failed_total",
	"quiver_queries_total",
	"quiver_query_duration_seconds",
	"quiver_transactions_failed_total",
	"quiver_transactions_total",
}

// exposition is a parsed text exposition: each family's HELP text and
// TYPE, and every sample by its full name (labels included).
type exposition struct {
	help, typ map[string]string
	samples   map[string]float64
	families  []string // in order of their TYPE lines
}

func parse(t *testing.T, text []byte) exposition {
	t.Helper()
	e := exposition{help: map[string]string{}, typ: map[string]string{}, samples: map[string]float64{}}
	for line := range strings.Lines(string(text)) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "# HELP "):
			name, help, _ := strings.Cut(strings.TrimPrefix(line, "# HELP "), " ")
			e.help[name] = help
		case strings.HasPrefix(line, "# TYPE "):
			name, typ, _ := strings.Cut(strings.TrimPrefix(line, "# TYPE "), " ")
			if _, dup := e.typ[name]; dup {
				t.Fatalf("family %s typed twice", name)
			}
			e.typ[name] = typ
			e.families = append(e.families, name)
		case strings.HasPrefix(line, "#"), line == "":
			t.Fatalf("unexpected line %q", line)
		default:
			i := strings.LastIndexByte(line, ' ')
			v, err := strconv.ParseFloat(line[i+1:], 64)
			if i < 0 || err != nil {
				t.Fatalf("sample line %q", line)
			}
			e.samples[line[:i]] = v
		}
	}
	return e
}

func (e exposition) get(t *testing.T, name string) float64 {
	t.Helper()
	v, ok := e.samples[name]
	if !ok {
		t.Fatalf("no sample %s", name)
	}
	return v
}

func scrape(t *testing.T, r *metrics.Registry) (exposition, []byte) {
	t.Helper()
	var b bytes.Buffer
	r.WritePrometheus(&b)
	return parse(t, b.Bytes()), b.Bytes()
}

// promtoolCheck runs `promtool check metrics` on an exposition. It fails
// the test when promtool is missing: `make promtool` installs it.
func promtoolCheck(t *testing.T, text []byte) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is not on PATH: run `make promtool` (it installs Debian's prometheus package), then the test again")
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = bytes.NewReader(text)
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	// Exit status 3 is lint findings on a well-formed exposition. The
	// contract names two gauges with a _total suffix, which promtool's
	// naming lint dislikes; those two findings, and only they, are
	// expected. Anything else (a parse error exits 1) fails.
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("promtool check metrics: %v\n%s\n--- exposition:\n%s", err, out, text)
	}
	for line := range strings.Lines(strings.TrimSpace(string(out))) {
		line = strings.TrimSpace(line)
		if line != `quiver_nodes_total non-counter metrics should not have "_total" suffix` &&
			line != `quiver_edges_total non-counter metrics should not have "_total" suffix` {
			t.Fatalf("promtool check metrics found %q\n--- exposition:\n%s", line, text)
		}
	}
}

// The exposition has exactly the ten metrics, no labels but the
// histogram's le, each with HELP text and TYPE, and passes promtool.
func TestExpositionShape(t *testing.T) {
	r := metrics.NewRegistry()
	defer r.Close()
	r.StatementEnded(3*time.Millisecond, nil)
	e, text := scrape(t, r)
	if !slices.Equal(e.families, wantNames) {
		t.Fatalf("families %v, want %v", e.families, wantNames)
	}
	if !slices.Equal(metrics.Names(), wantNames) {
		t.Fatalf("Names() = %v", metrics.Names())
	}
	types := map[string]string{"quiver_query_duration_seconds": "histogram",
		"quiver_connections_active": "gauge", "quiver_nodes_total": "gauge", "quiver_edges_total": "gauge", "quiver_memory_bytes": "gauge"}
	for _, name := range wantNames {
		want := types[name]
		if want == "" {
			want = "counter"
		}
		if e.typ[name] != want {
			t.Errorf("%s has TYPE %q, want %q", name, e.typ[name], want)
		}
		if len(e.help[name]) < 10 {
			t.Errorf("%s has HELP %q", name, e.help[name])
		}
	}
	for s := range e.samples {
		name, labels, _ := strings.Cut(s, "{")
		if labels != "" && !(strings.HasSuffix(name, "_bucket") && strings.HasPrefix(labels, `le="`)) {
			t.Errorf("sample %s carries labels", s)
		}
		fam := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		if !slices.Contains(wantNames, name) && fam != "quiver_query_duration_seconds" {
			t.Errorf("sample %s of no known family", s)
		}
	}
	// Real buckets from half a millisecond to a minute, then +Inf.
	buckets := 0
	for s := range e.samples {
		if strings.HasPrefix(s, "quiver_query_duration_seconds_bucket{") {
			buckets++
		}
	}
	if buckets != len(metrics.DurationBuckets)+1 {
		t.Fatalf("%d buckets, want %d", buckets, len(metrics.DurationBuckets)+1)
	}
	if e.get(t, `quiver_query_duration_seconds_bucket{le="0.0025"}`) != 0 ||
		e.get(t, `quiver_query_duration_seconds_bucket{le="0.005"}`) != 1 ||
		e.get(t, `quiver_query_duration_seconds_bucket{le="+Inf"}`) != 1 ||
		e.get(t, "quiver_query_duration_seconds_count") != 1 {
		t.Fatalf("a 3 ms statement in the wrong bucket:\n%s", text)
	}
	if sum := e.get(t, "quiver_query_duration_seconds_sum"); sum < 0.0029 || sum > 0.0031 {
		t.Fatalf("_sum %v, want 0.003", sum)
	}
	if e.get(t, "quiver_memory_bytes") < 1<<20 {
		t.Fatalf("memory %v bytes: not measured", e.get(t, "quiver_memory_bytes"))
	}
	promtoolCheck(t, text)
}

// A workload through a real engine moves each counter by exactly what it
// did, and the histogram counts what queries_total counts.
func TestRegistryCountsEngineWork(t *testing.T) {
	r := metrics.NewRegistry()
	defer r.Close()
	db, err := engine.Open(t.TempDir(), engine.Options{Observer: r})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	before, _ := scrape(t, r)
	if before.get(t, "quiver_nodes_total") != 0 {
		t.Fatal("nodes counted before SetDatabase")
	}
	r.SetDatabase(db)
	ctx := context.Background()
	run := func(q querier, text string, fail bool) {
		t.Helper()
		res, err := q.Query(ctx, text, nil)
		if err == nil {
			for {
				b, nextErr := res.Next()
				if nextErr != nil || b == nil {
					err = nextErr
					break
				}
			}
			res.Close()
		}
		if (err != nil) != fail {
			t.Fatalf("%s: error %v", text, err)
		}
	}
	const ok, failing = 7, 3
	for i := range ok {
		run(db, "CREATE (:P {i: "+strconv.Itoa(i)+"})-[:K]->(:Q)", false)
	}
	for range failing {
		run(db, "RETURN 1/0", true)
	}
	// Explicit: 2 committed (2 statements each), 1 rolled back, 1 failed
	// (a failing statement, then COMMIT).
	for range 2 {
		tx, _ := db.BeginTransaction(engine.TransactionOptions{})
		run(tx, "CREATE (:T)", false)
		run(tx, "MATCH (t:T) RETURN count(*)", false)
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	tx, _ := db.BeginTransaction(engine.TransactionOptions{})
	run(tx, "CREATE (:T)", false)
	tx.Rollback()
	tx, _ = db.BeginTransaction(engine.TransactionOptions{})
	run(tx, "RETURN 1/0", true)
	if _, err := tx.Commit(); err == nil {
		t.Fatal("a failed transaction committed")
	}
	r.Opened()
	r.Opened()
	r.Closed()

	after, text := scrape(t, r)
	delta := func(name string) float64 { return after.get(t, name) - before.get(t, name) }
	for name, want := range map[string]float64{
		"quiver_queries_total":                ok + failing + 4 + 1 + 1,
		"quiver_queries_failed_total":         failing + 1,
		"quiver_query_duration_seconds_count": ok + failing + 4 + 1 + 1,
		"quiver_transactions_total":           ok + failing + 2 + 1 + 1,
		"quiver_transactions_failed_total":    failing + 1,
		"quiver_connections_total":            2,
		"quiver_connections_active":           1,
		"quiver_nodes_total":                  2*ok + 2,
		"quiver_edges_total":                  ok,
	} {
		if got := delta(name); got != want {
			t.Errorf("%s moved by %v, want %v", name, got, want)
		}
	}
	if after.get(t, `quiver_query_duration_seconds_bucket{le="+Inf"}`) != after.get(t, "quiver_queries_total") {
		t.Error("the histogram's +Inf bucket differs from queries_total")
	}
	if r.ActiveConnections() != 1 {
		t.Errorf("ActiveConnections %d", r.ActiveConnections())
	}
	promtoolCheck(t, text)
}

type querier interface {
	Query(ctx context.Context, text string, params engine.Params) (*engine.Result, error)
}

// Metadata VictoriaMetrics adds when a process turns it on globally is
// replaced by ours, never doubled.
func TestExpositionIgnoresGlobalMetadata(t *testing.T) {
	r := metrics.NewRegistry()
	defer r.Close()
	vm.ExposeMetadata(true)
	defer vm.ExposeMetadata(false)
	e, text := scrape(t, r)
	if !slices.Equal(e.families, wantNames) {
		t.Fatalf("families %v", e.families)
	}
	promtoolCheck(t, text)
}

// What a statement's end costs the hot path: a few atomic adds and one
// histogram update (about 22 ns on two cores, against the 10 µs of
// the cheapest statement, RETURN 1).
func BenchmarkStatementEnded(b *testing.B) {
	r := metrics.NewRegistry()
	defer r.Close()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.StatementEnded(time.Millisecond, nil)
			r.TransactionEnded(engine.TxCommitted)
		}
	})
}
