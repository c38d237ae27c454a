package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine"
	qhttp "github.com/quiverdb/quiver/frontend/http"
)

// inProcessGCPercent is `quiver serve`'s GOGC under its memory limit
// (cmd/quiver/serve.go, serveGCPercent), so that the in-process server
// collects as often as the real one.
const inProcessGCPercent = 400

// ProfileWrites runs a write load against Quiver's engine and HTTP server
// in this process, configured as `quiver serve` configures them (the
// memory limit, GOGC, the engine and server options), on a new data
// directory dir, with a CPU profile of the timed part written to
// profilePath and its mutex and block profiles to profilePath.mutex and
// profilePath.block. `quiver serve` exposes no pprof endpoint; here the profile
// holds the server and the clients, whose frames (fasthttp.(*HostClient),
// bench.WriteLoad) tell them apart.
func ProfileWrites(ctx context.Context, dir string, load WriteLoad, profilePath string) (WriteResult, error) {
	budget := engine.DefaultMaxMemory()
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(inProcessGCPercent)
	}
	debug.SetMemoryLimit(budget)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := engine.Open(dir, engine.Options{Logger: quiet, MaxMemory: budget, WatchHeap: true, IdleTimeout: qhttp.DefaultIdleTimeout})
	if err != nil {
		return WriteResult{}, err
	}
	defer db.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return WriteResult{}, err
	}
	srv := qhttp.New(qhttp.Config{IdleTimeout: qhttp.DefaultIdleTimeout, Logger: quiet, Version: "bench"}, db)
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	load.Addr = ln.Addr().String()

	// The warm-up runs before the profile starts: a load with a warm-up
	// and no timed part, then the timed load without one.
	if load.Warmup > 0 {
		warm := load
		warm.Duration, warm.Count, warm.Warmup = load.Warmup, 0, 0
		if _, err := warm.Run(ctx); err != nil {
			return WriteResult{}, err
		}
		load.FirstID += 1 << 40 // ids of the timed part apart from the warm-up's
		load.Warmup = 0
	}
	f, err := os.Create(profilePath)
	if err != nil {
		return WriteResult{}, err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return WriteResult{}, err
	}
	// Where the load waits: every contended lock and every blocking event
	// of the timed part, written beside the CPU profile.
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(int(10 * time.Microsecond)) // every wait of 10 µs or more, a sample of the shorter ones: recording every one would cost the load much of its CPU
	res, err := load.Run(ctx)
	pprof.StopCPUProfile()
	runtime.SetMutexProfileFraction(0)
	runtime.SetBlockProfileRate(0)
	for _, name := range []string{"mutex", "block"} {
		if werr := writeProfile(name, profilePath+"."+name); werr != nil && err == nil {
			err = werr
		}
	}
	if err == nil && res.Failures > 0 {
		err = fmt.Errorf("%d of the writes failed; the first: %s", res.Failures, res.FirstErr)
	}
	return res, err // one process: ClientCPU is the server's and the clients'
}

// writeProfile writes the runtime profile name to path.
func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup(name).WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// EmbeddedWrites runs clients goroutines committing WriteStatement
// through engine.DB.Query in this process, on a new data directory dir
// (log, group commit and fdatasync as under `quiver serve`, and its
// collector settings), for warmup untimed and then d: the engine's rate
// without HTTP. CPU is this process's (ClientCPU); ServerCPU is zero.
func EmbeddedWrites(ctx context.Context, dir string, clients int, d, warmup time.Duration) (WriteResult, error) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(inProcessGCPercent))
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := engine.Open(dir, engine.Options{Logger: quiet})
	if err != nil {
		return WriteResult{}, err
	}
	defer db.Close()
	var nextID atomic.Int64
	var failures atomic.Int64
	var firstErr atomic.Value
	phase := func(d time.Duration, keep bool) ([]time.Duration, int64) {
		end := time.Now().Add(d)
		lats := make([][]time.Duration, clients)
		var commits atomic.Int64
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				for time.Now().Before(end) && ctx.Err() == nil {
					id := nextID.Add(1) - 1
					t0 := time.Now()
					err := runToEnd(ctx, db, WriteStatement, engine.Params{"id": id, "c": id % 1000})
					lat := time.Since(t0)
					if err != nil {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, err.Error())
						continue
					}
					commits.Add(1)
					if keep {
						lats[i] = append(lats[i], lat)
					}
				}
			})
		}
		wg.Wait()
		var all []time.Duration
		for _, l := range lats {
			all = append(all, l...)
		}
		return all, commits.Load()
	}
	res := WriteResult{Clients: clients, OtherCPU: -1, DiskFlushes: -1}
	_, res.Warmup = phase(warmup, false)
	cpu0 := selfCPU()
	start := time.Now()
	lat, commits := phase(d, true)
	res.Elapsed = time.Since(start)
	res.ClientCPU = selfCPU() - cpu0
	res.Commits, res.Failures = commits, failures.Load()
	if s, ok := firstErr.Load().(string); ok {
		res.FirstErr = s
	}
	res.Latency = Summarize(lat)
	if err == nil && res.Failures > 0 {
		err = fmt.Errorf("%d of the writes failed; the first: %s", res.Failures, res.FirstErr)
	}
	if err == nil {
		var rows Rows
		if rows, err = QueryEmbedded(ctx, db, "MATCH (n:W) RETURN count(*)"); err == nil && (len(rows) != 1 || rows[0][0] != res.Warmup+res.Commits) {
			err = fmt.Errorf("the database holds %v :W nodes, but %d writes were acknowledged", rows, res.Warmup+res.Commits)
		}
	}
	return res, err
}

// runToEnd runs a statement and reads its result to the end.
func runToEnd(ctx context.Context, db *engine.DB, text string, params engine.Params) error {
	res, err := db.Query(ctx, text, params)
	if err != nil {
		return err
	}
	defer res.Close()
	for {
		b, err := res.Next()
		if err != nil || b == nil {
			return err
		}
	}
}
