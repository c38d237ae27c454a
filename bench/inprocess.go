package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"runtime/pprof"

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
// profilePath. `quiver serve` exposes no pprof endpoint; here the profile
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
	res, err := load.Run(ctx)
	pprof.StopCPUProfile()
	if err == nil && res.Failures > 0 {
		err = fmt.Errorf("%d of the writes failed; the first: %s", res.Failures, res.FirstErr)
	}
	return res, err // one process: ClientCPU is the server's and the clients'
}
