package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// RestartGoals are the bounds of a restart on an imported data set: the
// first answer of `quiver serve` within Ready of its start, and its peak
// RSS while opening at most PeakRatio times its steady RSS after.
var RestartGoals = map[string]RestartGoal{
	"M": {Ready: time.Second, PeakRatio: 1.2},
	"L": {Ready: 10 * time.Second, PeakRatio: 1.2},
}

// RestartGoal is the bound of one scale (zero: none).
type RestartGoal struct {
	Ready     time.Duration
	PeakRatio float64
}

// RestartConfig says what MeasureRestart measures.
type RestartConfig struct {
	QuiverBin string
	Scale     Scale
	Seed      uint64
	DataSet   string // the generated CSVs (bench/data/<scale>-<seed>), imported when DB has no base
	DB        string // the imported data directory the server opens
	Runs      int    // restarts with the page cache warm, and as many with the directory evicted from it
	Cold      bool   // also the evicted restarts
	// Settle is how long after its first answer the server idles before
	// its steady RSS is read.
	Settle time.Duration
	Log    func(format string, args ...any)
}

// RestartScale is the restarts on one imported data set.
type RestartScale struct {
	Scale    Scale
	Seed     uint64
	DB       string
	DBBytes  int64
	Import   time.Duration // 0: the directory was imported before
	Warm     []RestartRun
	Cold     []RestartRun
	Goal     RestartGoal
	RunsWant int
}

// RestartRun is one start of `quiver serve` on the imported directory.
type RestartRun struct {
	// Load is the 1-minute load average just before the start.
	Load float64
	// Ready is from starting the process to the (checked) answer of its
	// first query, Listening to its "listening" line, which it logs once
	// the database is open.
	Ready, Listening time.Duration
	// CPU is the server's user+system CPU when its first answer arrived
	// (opening the database, nearly all of it); OtherCPU what the rest of
	// the machine used meanwhile (-1: unknown).
	CPU, OtherCPU time.Duration
	// PeakRSS is VmHWM when the first answer arrived (the peak while
	// opening), ReadyRSS VmRSS then, SteadyRSS VmRSS after Settle.
	PeakRSS, ReadyRSS, SteadyRSS int64
}

// PeakRatio is the peak RSS while opening over the steady RSS.
func (r RestartRun) PeakRatio() float64 {
	if r.SteadyRSS <= 0 {
		return 0
	}
	return float64(r.PeakRSS) / float64(r.SteadyRSS)
}

// RestartQuery is the first query of every restart; it must answer the
// scale's node count.
const RestartQuery = "MATCH (n) RETURN count(n)"

// MeasureRestart imports the data set when cfg.DB holds no base, then
// starts `quiver serve` on it cfg.Runs times with the page cache as the
// import or the last run left it (warm) and, with cfg.Cold, as often after
// evicting the directory's files from it, alternated. Each run is timed to
// its first answer, its memory read, and ended with SIGKILL (a graceful
// stop writes no checkpoint when nothing changed, but a kill leaves the
// directory as it is for certain).
func MeasureRestart(ctx context.Context, cfg RestartConfig) (*RestartScale, error) {
	logf := cfg.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	res := &RestartScale{Scale: cfg.Scale, Seed: cfg.Seed, DB: cfg.DB, Goal: RestartGoals[cfg.Scale.Name], RunsWant: cfg.Runs}
	if _, err := os.Stat(filepath.Join(cfg.DB, "manifest.json")); err != nil {
		if _, err := os.Stat(filepath.Join(cfg.DataSet, KnowsCSV)); err != nil {
			return nil, fmt.Errorf("restart: no data set at %s (quiverbench gen -scale %s -seed %d -out %s)", cfg.DataSet, cfg.Scale.Name, cfg.Seed, cfg.DataSet)
		}
		os.RemoveAll(cfg.DB)
		logf("restart: importing %s into %s", cfg.DataSet, cfg.DB)
		d, _, err := quiverImport(ctx, cfg.QuiverBin, cfg.DataSet, cfg.DB)
		if err != nil {
			return nil, err
		}
		res.Import = d
	}
	res.DBBytes = DiskSize(cfg.DB)
	for i := range cfg.Runs {
		for _, cold := range []bool{false, true} {
			if cold && !cfg.Cold {
				continue
			}
			if cold {
				if err := EvictFromPageCache(cfg.DB); err != nil {
					return nil, err
				}
			}
			r, err := restartOnce(ctx, cfg.QuiverBin, cfg.DB, int64(cfg.Scale.Nodes), cfg.Settle)
			if err != nil {
				return nil, fmt.Errorf("restart %s %d: %w", cfg.Scale.Name, i+1, err)
			}
			kind := "warm"
			if cold {
				kind = "evicted"
				res.Cold = append(res.Cold, r)
			} else {
				res.Warm = append(res.Warm, r)
			}
			logf("restart %s %d (%s): first answer after %v (listening %v), CPU %v, peak RSS %s, steady %s (×%.2f), load %.2f, other processes' CPU %v",
				cfg.Scale.Name, i+1, kind, r.Ready.Round(time.Millisecond), r.Listening.Round(time.Millisecond), r.CPU,
				bytesText(r.PeakRSS), bytesText(r.SteadyRSS), r.PeakRatio(), r.Load, r.OtherCPU)
		}
	}
	return res, nil
}

// restartOnce starts a server on dir, times it to the answer of
// RestartQuery, checks the answer is nodes, reads its memory then and
// after settle, and SIGKILLs it.
func restartOnce(ctx context.Context, bin, dir string, nodes int64, settle time.Duration) (RestartRun, error) {
	var r RestartRun
	if l, err := LoadAvg(); err == nil {
		r.Load = l[0]
	}
	span := startCPUSpan()
	p, err := StartQuiver(bin, dir, 10*time.Minute)
	if err != nil {
		return r, err
	}
	defer p.Kill()
	n, err := p.Count(ctx, RestartQuery)
	if err != nil {
		return r, err
	}
	r.Ready = time.Since(p.Started)
	r.Listening = p.Listening.Sub(p.Started)
	if n != nodes {
		return r, fmt.Errorf("%s answered %d, want %d", RestartQuery, n, nodes)
	}
	r.OtherCPU = -1
	if ticks, err := ProcCPU(p.Pid()); err == nil {
		r.CPU = time.Duration(ticks) * 10 * time.Millisecond
		r.OtherCPU = span.others(r.CPU)
	}
	if r.PeakRSS, err = PeakRSS(p.Pid()); err != nil {
		return r, err
	}
	if r.ReadyRSS, err = CurrentRSS(p.Pid()); err != nil {
		return r, err
	}
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return r, ctx.Err()
	}
	if r.SteadyRSS, err = CurrentRSS(p.Pid()); err != nil {
		return r, err
	}
	return r, nil
}

// CurrentRSS reads a process's resident set size (VmRSS) in bytes; pid 0
// means this process.
func CurrentRSS(pid int) (int64, error) {
	v, err := procStatusField(procPath(pid, "status"), "VmRSS:")
	return v * 1024, err
}
