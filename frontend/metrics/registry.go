package metrics

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
	"time"

	vm "github.com/VictoriaMetrics/metrics"

	"github.com/quiverdb/quiver/engine"
)

// Registry holds the server's ten metrics. It is the engine's Observer
// (pass it in engine.Options.Observer) and the connection counter every
// frontend calls (Opened, Closed). It is safe for concurrent use; the
// event methods are a few atomic adds and one histogram update.
type Registry struct {
	set *vm.Set

	queries, queriesFailed *vm.Counter
	duration               *vm.PrometheusHistogram
	connections            *vm.Counter
	active                 atomic.Int64
	transactions, txFailed *vm.Counter
	counts                 atomic.Pointer[Counter]
	rate                   rateWindow
	stop                   chan struct{}
	closeOnce              sync.Once
	writing                sync.Mutex // serialises WritePrometheus's buffer
	raw, out               bytes.Buffer
}

// Counter is what the nodes and edges gauges read: *engine.DB.
type Counter interface {
	Counts() engine.Counts
}

// DurationBuckets are the upper bounds, in seconds, of
// quiver_query_duration_seconds: from half a millisecond (a point
// lookup) to a minute, about three per decade.
var DurationBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// family is one metric as the exposition describes it.
type family struct {
	name, typ, help string
}

// families are the ten metrics, in the exposition's (alphabetical) order.
// The help texts are the definitions docs/operations.md gives.
var families = []family{
	{"quiver_connections_active", "gauge", "Client connections open now, on every listener (HTTP API, wire protocol, change stream)."},
	{"quiver_connections_total", "counter", "Client connections accepted since the server started, on every listener."},
	{"quiver_edges_total", "gauge", "Relationships in the latest committed version of the graph."},
	{"quiver_memory_bytes", "gauge", "Memory the Go runtime holds from the operating system (heap, goroutine stacks, runtime data, less what it returned): the figure GOMEMLIMIT and --max-memory bound."},
	{"quiver_nodes_total", "gauge", "Nodes in the latest committed version of the graph."},
	{"quiver_queries_failed_total", "counter", "Statements that ended with an error."},
	{"quiver_queries_total", "counter", "Statements that ended, on any protocol, failed ones included."},
	{"quiver_query_duration_seconds", "histogram", "Wall time of statements, from the call that ran them to their end (last row streamed, closed early, or failed)."},
	{"quiver_transactions_failed_total", "counter", "Transactions that ended without committing because of an error: a failed auto-commit statement, a failed commit (40001 conflict), a COMMIT of a failed transaction, expiry. A ROLLBACK the client asked for is not one."},
	{"quiver_transactions_total", "counter", "Transactions that ended: explicit transactions, and statements run outside one (auto-commit, one statement each)."},
}

// Names lists the ten metric names.
func Names() []string {
	names := make([]string, len(families))
	for i, f := range families {
		names[i] = f.name
	}
	return names
}

// NewRegistry returns a registry with every counter at zero. It samples
// quiver_queries_total once a second for QueriesPerSecond until Close.
func NewRegistry() *Registry {
	s := vm.NewSet()
	r := &Registry{set: s, stop: make(chan struct{})}
	r.queries = s.NewCounter("quiver_queries_total")
	r.queriesFailed = s.NewCounter("quiver_queries_failed_total")
	r.duration = s.NewPrometheusHistogramExt("quiver_query_duration_seconds", DurationBuckets)
	r.connections = s.NewCounter("quiver_connections_total")
	r.transactions = s.NewCounter("quiver_transactions_total")
	r.txFailed = s.NewCounter("quiver_transactions_failed_total")
	s.NewGauge("quiver_connections_active", func() float64 { return float64(r.active.Load()) })
	s.NewGauge("quiver_nodes_total", func() float64 { return float64(r.dbCounts().Nodes) })
	s.NewGauge("quiver_edges_total", func() float64 { return float64(r.dbCounts().Relationships) })
	s.NewGauge("quiver_memory_bytes", func() float64 { return float64(MemoryBytes()) })
	r.rate.init(time.Now())
	go r.sample()
	return r
}

// SetDatabase names the database whose counts the nodes and edges gauges
// report (zero until it is set: the registry exists before the database
// opens, to observe it from the start).
func (r *Registry) SetDatabase(db Counter) { r.counts.Store(&db) }

func (r *Registry) dbCounts() engine.Counts {
	if c := r.counts.Load(); c != nil {
		return (*c).Counts()
	}
	return engine.Counts{}
}

// Close stops the sampling behind QueriesPerSecond. The metrics still
// count and write.
func (r *Registry) Close() {
	r.closeOnce.Do(func() { close(r.stop) })
}

// StatementEnded counts a statement (engine.Observer).
func (r *Registry) StatementEnded(d time.Duration, err error) {
	r.queries.Inc()
	if err != nil {
		r.queriesFailed.Inc()
	}
	r.duration.Update(d.Seconds())
}

// TransactionEnded counts a transaction (engine.Observer).
func (r *Registry) TransactionEnded(o engine.TransactionOutcome) {
	r.transactions.Inc()
	if o == engine.TxFailed {
		r.txFailed.Inc()
	}
}

// Opened counts a client connection a frontend accepted.
func (r *Registry) Opened() {
	r.connections.Inc()
	r.active.Add(1)
}

// Closed counts the end of a connection Opened counted (once each).
func (r *Registry) Closed() { r.active.Add(-1) }

// ActiveConnections is the number of client connections open now.
func (r *Registry) ActiveConnections() int64 { return r.active.Load() }

// QueriesPerSecond is the rate of statements that ended over the last
// minute (rate.go).
func (r *Registry) QueriesPerSecond() float64 {
	return r.rate.perSecond(time.Now(), r.queries.Get())
}

var _ engine.Observer = (*Registry)(nil)

// WritePrometheus writes the text exposition (format 0.0.4) of the ten
// metrics to w: each family's # HELP and # TYPE lines, then its samples.
// VictoriaMetrics writes the samples; its own metadata, when a process
// turned it on globally (metrics.ExposeMetadata), has a name but no help
// text, so it is dropped and ours written instead.
func (r *Registry) WritePrometheus(w io.Writer) {
	r.writing.Lock()
	defer r.writing.Unlock()
	r.raw.Reset()
	r.out.Reset()
	r.set.WritePrometheus(&r.raw)
	prev := ""
	for line := range bytes.Lines(r.raw.Bytes()) {
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		f := familyOf(line)
		if f == nil {
			continue // not one of ours: nothing else goes out
		}
		if f.name != prev {
			r.out.WriteString("# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.typ + "\n")
			prev = f.name
		}
		r.out.Write(line)
	}
	_, _ = w.Write(r.out.Bytes())
}

// familyOf finds the family of a sample line: its name up to the labels
// or the value, less a histogram's _bucket, _sum or _count.
func familyOf(line []byte) *family {
	end := bytes.IndexAny(line, "{ ")
	if end < 0 {
		return nil
	}
	name := string(line[:end])
	for i := range families {
		f := &families[i]
		if name == f.name {
			return f
		}
		if f.typ == "histogram" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if name == f.name+suffix {
					return f
				}
			}
		}
	}
	return nil
}

// sample records quiver_queries_total once a second for the rate.
func (r *Registry) sample() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case now := <-t.C:
			r.rate.add(now, r.queries.Get())
		}
	}
}
