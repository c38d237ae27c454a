package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/quiverdb/quiver/frontend/stream"
)

// ProtocolsConfig configures RunProtocols.
type ProtocolsConfig struct {
	QuiverBin string
	TempDir   string // data directories go here (a disk, not tmpfs)
	Rounds    int
	// RoundTrips timed per protocol and round, after Warmup untimed.
	RoundTrips, Warmup int
	// StreamRows is the size of the streamed result.
	StreamRows int64
	// Subscribers watch the change stream while WriteClients write for
	// WriteDuration (after a second's warm-up).
	Subscribers, WriteClients int
	WriteDuration             time.Duration
	Commit, Note              string
	Log                       io.Writer
}

// ProtocolsReport is what RunProtocols measured.
type ProtocolsReport struct {
	Config  ProtocolsConfig
	Machine Machine
	Date    time.Time
	// Timings[round] holds one timing per protocol, in the order HTTP,
	// wire TCP, wire TCP read as lines, wire QUIC.
	Timings [][]ProtocolTiming
	Events  []StreamEvents // one per round
}

// StreamEvents is the change stream under write load: commits
// acknowledged over HTTP and the CHANGE messages the subscribers got.
type StreamEvents struct {
	Subscribers int
	Writes      WriteResult
	// Delivered counts CHANGE messages over all subscribers, within the
	// timed part; Lagged the subscribers dropped as too slow.
	Delivered int64
	Lagged    int
	Elapsed   time.Duration
}

// PerSecond is the events delivered per second, over all subscribers.
func (e StreamEvents) PerSecond() float64 {
	if e.Elapsed <= 0 {
		return 0
	}
	return float64(e.Delivered) / e.Elapsed.Seconds()
}

// RunProtocols starts a real `quiver serve` per round and measures, on
// the same server: the trivial query's round trip and a streamed result
// over HTTP, the wire protocol on TCP and on QUIC; then the change
// stream's delivery to Subscribers during a write load.
func RunProtocols(ctx context.Context, cfg ProtocolsConfig) (*ProtocolsReport, error) {
	rep := &ProtocolsReport{Config: cfg, Machine: ThisMachine(), Date: time.Now()}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	for round := 1; round <= cfg.Rounds; round++ {
		dir, err := os.MkdirTemp(cfg.TempDir, "quiverbench-protocols-")
		if err != nil {
			return nil, err
		}
		timings, events, err := protocolsRound(ctx, cfg, filepath.Join(dir, "db"), logf, round)
		os.RemoveAll(dir)
		if err != nil {
			return nil, err
		}
		rep.Timings = append(rep.Timings, timings)
		rep.Events = append(rep.Events, events)
	}
	return rep, nil
}

func protocolsRound(ctx context.Context, cfg ProtocolsConfig, dataDir string, logf func(string, ...any), round int) ([]ProtocolTiming, StreamEvents, error) {
	var ev StreamEvents
	p, err := StartQuiver(cfg.QuiverBin, dataDir, time.Minute, "--rate-limit", "0")
	if err != nil {
		return nil, ev, err
	}
	defer p.Stop()
	dials := []struct {
		name string
		dial func() (ProtocolClient, error)
	}{
		{"HTTP", func() (ProtocolClient, error) { return DialHTTP(p.Addr), nil }},
		{"wire, TCP", func() (ProtocolClient, error) { return DialWireTCP(ctx, p.Addr) }},
		{"wire, TCP, lines", func() (ProtocolClient, error) { return DialWireLines(ctx, p.Addr) }},
		{"wire, QUIC", func() (ProtocolClient, error) { return DialWireQUIC(ctx, p.Addr, p.QUICFingerprint) }},
	}
	var timings []ProtocolTiming
	for _, d := range dials {
		c, err := d.dial()
		if err != nil {
			return nil, ev, fmt.Errorf("%s: %w", d.name, err)
		}
		t, err := TimeProtocol(ctx, d.name, c, cfg.Warmup, cfg.RoundTrips, cfg.StreamRows)
		c.Close()
		if err != nil {
			return nil, ev, err
		}
		logf("round %d: %-16s round trip p50 %v p99 %v; %d rows in %v (%.0f rows/s)", round, d.name,
			t.RoundTrips.P50, t.RoundTrips.P99, t.Rows, t.Elapsed.Round(time.Millisecond), t.RowsPerSecond())
		timings = append(timings, t)
	}
	if cfg.Subscribers > 0 {
		if ev, err = streamUnderWrites(ctx, cfg, p); err != nil {
			return nil, ev, err
		}
		logf("round %d: %d subscribers, %d clients writing: %.0f commits/s, %.0f change events/s delivered, %d lagged",
			round, ev.Subscribers, cfg.WriteClients, ev.Writes.Rate(), ev.PerSecond(), ev.Lagged)
	}
	return timings, ev, nil
}

// streamUnderWrites subscribes cfg.Subscribers watchers to the written
// nodes' label, runs the write load, and counts what they received
// during its timed part.
func streamUnderWrites(ctx context.Context, cfg ProtocolsConfig, p *QuiverProcess) (StreamEvents, error) {
	ev := StreamEvents{Subscribers: cfg.Subscribers}
	url := "ws://" + p.Addr + "/api/v1/stream"
	watchers := make([]*stream.Watcher, 0, cfg.Subscribers)
	defer func() {
		for _, w := range watchers {
			w.Close()
		}
	}()
	for range cfg.Subscribers {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		w, err := stream.Watch(wctx, url, "", []string{"(:W)"})
		cancel()
		if err != nil {
			return ev, err
		}
		watchers = append(watchers, w)
	}
	count := func() (n int64) {
		for _, w := range watchers {
			n += int64(w.Changes())
		}
		return n
	}
	load := WriteLoad{Addr: p.Addr, Clients: cfg.WriteClients, Duration: cfg.WriteDuration, Warmup: time.Second, ServerPid: p.Pid()}
	// Events are counted over the whole load, warm-up included, and
	// until the last acknowledged commit's changes have arrived.
	before := count()
	t0 := time.Now()
	res, err := load.Run(ctx)
	if err != nil {
		return ev, err
	}
	// Wait for the changes of acknowledged commits to arrive, bounded:
	// delivery is after the commit, so it may trail the last answer.
	want := before + int64(cfg.Subscribers)*(res.Commits+res.Warmup)
	for deadline := time.Now().Add(30 * time.Second); count() < want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // polling a counter: nothing signals its growth
	}
	ev.Elapsed = time.Since(t0)
	ev.Writes = res
	ev.Delivered = count() - before
	for _, w := range watchers {
		select {
		case <-w.Done():
			ev.Lagged++
		default:
		}
	}
	return ev, nil
}
