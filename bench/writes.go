package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"
)

// WritesConfig is one run of the write and durability measurements
// (`quiverbench writes`, bench/README.md).
type WritesConfig struct {
	QuiverBin string // the quiver binary (make bench-writes builds bin/quiver)
	KuzuDir   string // bench/kuzu, npm-installed; "" leaves Kùzu out
	// TempDir holds the data directories; it must be on a disk, not in
	// memory (tmpfs), or fdatasync costs nothing.
	TempDir string

	Clients  []int         // client counts of the throughput loads (1 and 32)
	Duration time.Duration // timed part of each throughput load
	Warmup   time.Duration // untimed part before it
	// FloorDuration is the timed part of a load of FloorStatement after
	// each write load, on the same server (0: none).
	FloorDuration time.Duration
	// Embedded adds, for each client count, the same writes through
	// engine.DB.Query in this process, without HTTP (EmbeddedWrites).
	Embedded bool
	// KuzuWrites is the number of timed statements of each Kùzu load, after
	// KuzuWarmup untimed ones.
	KuzuWrites, KuzuWarmup int
	Rounds                 int // throughput rounds, engines alternated

	// RecoveryCommits is the number of logged commits recovered from (0:
	// no recovery measurement); RecoveryClients write them; Restarts is how
	// many times the server is restarted on the log with the page cache
	// warm and how many with the log evicted from it.
	RecoveryCommits int64
	RecoveryClients int
	Restarts        int

	// MData is the M data set (quiverbench gen -scale M); "" leaves the
	// checkpoint measurement out. CheckpointRuns imports and checkpoints.
	MData          string
	CheckpointRuns int

	Commit string
	Note   string
	Log    io.Writer
}

// WritesReport is what a writes run measured; WriteWritesSection renders it.
type WritesReport struct {
	WritesConfig
	Date        time.Time
	Machine     Machine
	GoVersion   string
	KuzuVersion string
	FS          Filesystem
	Rounds      []WritesRound
	Recovery    *RecoveryResult
	Checkpoint  *CheckpointResult
	// Loads are the 1-minute load averages read before each phase.
	Loads []LoadSample
}

// LoadSample is the machine's load average when a phase started.
type LoadSample struct {
	Phase string
	Avg   [3]float64
}

// WritesRound is one round of throughput loads.
type WritesRound struct {
	Load   [3]float64    // the load average when it started
	Fsync  FsyncResult   // the disk's fdatasync rate, measured first
	Quiver []WriteResult // one per client count, in Clients order
	Floor  []WriteResult // FloorStatement, the same client counts (when measured)
	// Embedded are the engine's rates without HTTP, the same client
	// counts (when measured).
	Embedded []WriteResult
	Kuzu     []KuzuWrites // one per mode
}

// KuzuWrites is one Kùzu load: one connection, in-process, one statement
// at a time.
type KuzuWrites struct {
	Mode    string // async (await conn.execute) or sync (conn.executeSync)
	Commits int64
	Elapsed time.Duration
	Latency LatencySummary
	// CPU is the Node process's CPU share of one core over the whole
	// call (opening, the table, the warm-up and the timed statements);
	// -1 when unknown.
	CPU float64
}

// Rate is committed statements per second.
func (k KuzuWrites) Rate() float64 {
	if k.Elapsed <= 0 {
		return 0
	}
	return float64(k.Commits) / k.Elapsed.Seconds()
}

// KuzuModes are the ways run.js executes the prepared statement.
var KuzuModes = []string{"async", "sync"}

// RunWrites measures write throughput and latency (Quiver over HTTP with
// each client count, Kùzu in-process, alternated round by round), then
// recovery after RecoveryCommits logged commits, then the checkpoint of
// the M graph against its import.
func RunWrites(ctx context.Context, cfg WritesConfig) (*WritesReport, error) {
	logw := cfg.Log
	if logw == nil {
		logw = io.Discard
	}
	logf := func(format string, a ...any) { fmt.Fprintf(logw, format+"\n", a...) }
	if cfg.TempDir == "" {
		cfg.TempDir = os.TempDir()
	}
	fs, err := FilesystemOf(cfg.TempDir)
	if err != nil {
		return nil, err
	}
	if fs.InMemory() {
		return nil, fmt.Errorf("%s is on %s, in memory: fdatasync costs nothing there; give -tmp a directory on a disk", cfg.TempDir, fs)
	}
	work, err := os.MkdirTemp(cfg.TempDir, "quiverbench-writes-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	rep := &WritesReport{WritesConfig: cfg, Date: time.Now(), Machine: ThisMachine(), GoVersion: runtime.Version(), FS: fs}
	logf("data directories under %s: %s", work, fs)
	sample := func(phase string) {
		if avg, err := LoadAvg(); err == nil {
			rep.Loads = append(rep.Loads, LoadSample{phase, avg})
			logf("%s: load average %.2f %.2f %.2f", phase, avg[0], avg[1], avg[2])
		}
	}

	sample("before the run")
	var kz *Kuzu
	if cfg.KuzuDir != "" {
		if kz, err = StartKuzu(cfg.KuzuDir); err != nil {
			return nil, err
		}
		defer kz.Close()
	}
	for r := range cfg.Rounds {
		if r > 0 {
			sample(fmt.Sprintf("round %d", r+1))
		}
		var round WritesRound
		round.Load, _ = LoadAvg()
		if round.Fsync, err = MeasureFdatasync(work, 2*time.Second); err != nil {
			return nil, err
		}
		logf("round %d: fdatasync after a 128-byte append: %.0f/s, p50 %v", r+1, round.Fsync.Rate(), round.Fsync.Latency.P50)
		for i, clients := range cfg.Clients {
			res, floor, err := quiverLoad(ctx, cfg, filepath.Join(work, fmt.Sprintf("r%d-c%d", r, clients)), clients, fs)
			if err != nil {
				return nil, err
			}
			logf("round %d: quiver %2d clients: %8.0f commits/s  p50 %v  p99 %v  CPU: server %.0f%%, clients %.0f%%, others %.0f%%", r+1, clients,
				res.Rate(), res.Latency.P50, res.Latency.P99, cpuShare(res.ServerCPU, res.Elapsed), cpuShare(res.ClientCPU, res.Elapsed), cpuShare(res.OtherCPU, res.Elapsed))
			round.Quiver = append(round.Quiver, res)
			if floor != nil {
				logf("round %d: quiver %2d clients, %s: %8.0f/s  p50 %v  p99 %v", r+1, clients, FloorStatement, floor.Rate(), floor.Latency.P50, floor.Latency.P99)
				round.Floor = append(round.Floor, *floor)
			}
			if cfg.Embedded {
				dir := filepath.Join(work, fmt.Sprintf("embedded-r%d-c%d", r, clients))
				e, err := EmbeddedWrites(ctx, dir, clients, cfg.Duration, cfg.Warmup)
				os.RemoveAll(dir)
				if err != nil {
					return nil, fmt.Errorf("embedded, %d writers: %w", clients, err)
				}
				logf("round %d: embedded %2d writers: %8.0f commits/s  p50 %v  p99 %v  CPU %.0f%%", r+1, clients, e.Rate(), e.Latency.P50, e.Latency.P99, cpuShare(e.ClientCPU, e.Elapsed))
				round.Embedded = append(round.Embedded, e)
			}
			if i == 0 && kz != nil { // Kùzu between the client counts: alternated
				for _, mode := range KuzuModes {
					kw, version, err := kuzuLoad(kz, filepath.Join(work, fmt.Sprintf("kuzu-r%d-%s", r, mode)), cfg, mode)
					if err != nil {
						return nil, err
					}
					rep.KuzuVersion = version
					logf("round %d: kuzu %-5s:      %8.0f commits/s  p50 %v  p99 %v", r+1, mode, kw.Rate(), kw.Latency.P50, kw.Latency.P99)
					round.Kuzu = append(round.Kuzu, kw)
				}
			}
		}
		rep.Rounds = append(rep.Rounds, round)
	}
	if cfg.RecoveryCommits > 0 {
		sample("recovery")
		rec, err := MeasureRecovery(ctx, cfg, filepath.Join(work, "recovery"), logf)
		if err != nil {
			return nil, err
		}
		rep.Recovery = rec
	}
	if cfg.MData != "" {
		sample("checkpoint")
		ck, err := MeasureCheckpoint(ctx, cfg, work, logf)
		if err != nil {
			return nil, err
		}
		rep.Checkpoint = ck
	}
	sample("end")
	return rep, nil
}

// quiverLoad starts a server with default options on a new data
// directory, runs one throughput load against it, checks that the
// database holds exactly the acknowledged commits, runs the floor load
// when asked, and stops the server.
func quiverLoad(ctx context.Context, cfg WritesConfig, dir string, clients int, fs Filesystem) (WriteResult, *WriteResult, error) {
	p, err := StartQuiver(cfg.QuiverBin, dir, time.Minute)
	if err != nil {
		return WriteResult{}, nil, err
	}
	defer os.RemoveAll(dir)
	load := WriteLoad{Addr: p.Addr, Clients: clients, Duration: cfg.Duration, Warmup: cfg.Warmup, ServerPid: p.Pid(),
		Flushes: func() (int64, bool) { return DiskFlushes(fs) }}
	res, err := load.Run(ctx)
	if err == nil && res.Failures > 0 {
		err = fmt.Errorf("%d of the writes failed; the first: %s", res.Failures, res.FirstErr)
	}
	if err == nil {
		err = checkCount(ctx, p, res.Warmup+res.Commits)
	}
	var floor *WriteResult
	if err == nil && cfg.FloorDuration > 0 {
		load.Statement, load.Duration, load.Warmup = FloorStatement, cfg.FloorDuration, cfg.Warmup/2
		var f WriteResult
		if f, err = load.Run(ctx); err == nil && f.Failures > 0 {
			err = fmt.Errorf("%d of the %s statements failed; the first: %s", f.Failures, FloorStatement, f.FirstErr)
		}
		floor = &f
	}
	if serr := p.Stop(); err == nil {
		err = serr
	}
	if err != nil {
		return res, nil, fmt.Errorf("quiver, %d clients: %w", clients, err)
	}
	return res, floor, nil
}

// checkCount fails unless the server holds exactly want :W nodes.
func checkCount(ctx context.Context, p *QuiverProcess, want int64) error {
	n, err := p.Count(ctx, "MATCH (n:W) RETURN count(*)")
	if err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("the database holds %d :W nodes, but %d writes were acknowledged", n, want)
	}
	return nil
}

// kuzuLoad runs one Kùzu load in a new database at dir.
func kuzuLoad(kz *Kuzu, dir string, cfg WritesConfig, mode string) (KuzuWrites, string, error) {
	defer os.RemoveAll(dir)
	cpu0, cpuErr := ProcCPU(kz.Pid())
	start := time.Now()
	a, err := kz.Writes(dir, cfg.KuzuWrites, cfg.KuzuWarmup, mode)
	if err != nil {
		return KuzuWrites{}, "", err
	}
	wall := time.Since(start)
	cpu1, err := ProcCPU(kz.Pid())
	if a.Count != int64(cfg.KuzuWrites+cfg.KuzuWarmup) {
		return KuzuWrites{}, "", fmt.Errorf("kuzu %s: %d nodes after %d writes", mode, a.Count, cfg.KuzuWrites+cfg.KuzuWarmup)
	}
	kw := KuzuWrites{Mode: mode, Commits: a.Commits, Elapsed: time.Duration(a.MS * float64(time.Millisecond)), CPU: -1}
	if err == nil && cpuErr == nil {
		kw.CPU = cpuShare(time.Duration(cpu1-cpu0)*10*time.Millisecond, wall)
	}
	lat := make([]time.Duration, len(a.LatUS))
	for i, us := range a.LatUS {
		lat[i] = time.Duration(us) * time.Microsecond
	}
	kw.Latency = Summarize(lat)
	return kw, a.Version, nil
}

func cpuShare(cpu, wall time.Duration) float64 {
	if wall <= 0 {
		return 0
	}
	return 100 * cpu.Seconds() / wall.Seconds()
}

// Median results over the rounds.

// QuiverRates returns the rate of client-count index i in every round.
func (r *WritesReport) QuiverRates(i int) []float64 {
	var out []float64
	for _, round := range r.Rounds {
		if i < len(round.Quiver) {
			out = append(out, round.Quiver[i].Rate())
		}
	}
	return out
}

// MedianQuiver is the round whose rate is the median for client-count
// index i (the lower middle for an even count): its latencies are then
// those of a real run, not a mix.
func (r *WritesReport) MedianQuiver(i int) (WriteResult, error) {
	var runs []WriteResult
	for _, round := range r.Rounds {
		if i < len(round.Quiver) {
			runs = append(runs, round.Quiver[i])
		}
	}
	if len(runs) == 0 {
		return WriteResult{}, errors.New("no runs")
	}
	return medianBy(runs, WriteResult.Rate), nil
}

// MedianFloorRatio is, for client-count index i, the median over the
// rounds of the commit rate's share of the rate without a write measured
// in the same round (each round's pair, so that the machine's load is
// the same for both), and the median rate without a write; false when no
// round measured both.
func (r *WritesReport) MedianFloorRatio(i int) (ratio, floor float64, ok bool) {
	var ratios, floors []float64
	for _, round := range r.Rounds {
		if i < len(round.Quiver) && i < len(round.Floor) && round.Floor[i].Rate() > 0 {
			ratios = append(ratios, round.Quiver[i].Rate()/round.Floor[i].Rate())
			floors = append(floors, round.Floor[i].Rate())
		}
	}
	if len(ratios) == 0 {
		return 0, 0, false
	}
	id := func(x float64) float64 { return x }
	return medianBy(ratios, id), medianBy(floors, id), true
}

// MedianEmbedded is the median-rate embedded run of client-count index i.
func (r *WritesReport) MedianEmbedded(i int) (WriteResult, bool) {
	var runs []WriteResult
	for _, round := range r.Rounds {
		if i < len(round.Embedded) {
			runs = append(runs, round.Embedded[i])
		}
	}
	if len(runs) == 0 {
		return WriteResult{}, false
	}
	return medianBy(runs, WriteResult.Rate), true
}

// MedianKuzu is the median-rate run of mode.
func (r *WritesReport) MedianKuzu(mode string) (KuzuWrites, bool) {
	var runs []KuzuWrites
	for _, round := range r.Rounds {
		for _, k := range round.Kuzu {
			if k.Mode == mode {
				runs = append(runs, k)
			}
		}
	}
	if len(runs) == 0 {
		return KuzuWrites{}, false
	}
	return medianBy(runs, KuzuWrites.Rate), true
}

// medianBy returns the element of xs with the median key (the lower
// middle one for an even count).
func medianBy[T any](xs []T, key func(T) float64) T {
	s := slices.Clone(xs)
	slices.SortStableFunc(s, func(a, b T) int { return cmp.Compare(key(a), key(b)) })
	return s[(len(s)-1)/2]
}
