package bench

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	"golang.org/x/sys/unix"

	"github.com/quiverdb/quiver/engine"
)

// noCheckpointFlags make a server log every commit and never checkpoint
// on its own (no timer, a log-size trigger out of reach), so the log is
// all there is to recover from.
var noCheckpointFlags = []string{"--checkpoint-interval", "0", "--checkpoint-wal-size", "100GB"}

// RecoveryResult is the recovery of a server killed after
// RecoveryCommits logged commits and no checkpoint.
type RecoveryResult struct {
	Write       WriteResult // the load that wrote the commits
	WALBytes    int64       // the log's segment files after the kill
	WALSegments int
	Recovered   int64 // :W nodes after recovery (each restart checks it)
	Records     int64 // records replayed, from the server's log line
	// Warm restarts ran with the log in the page cache (as after a
	// process crash), Cold ones after evicting its files from the cache
	// (posix_fadvise DONTNEED: read from the disk, as after a reboot).
	Warm, Cold []RestartTiming
	// Open is engine.Open in this process on a copy of the directory
	// (page cache warm): load the (empty) base, check every frame of the
	// log, replay it.
	Open []time.Duration
}

// RestartTiming is one restart on the log.
type RestartTiming struct {
	// Ready is from starting `quiver serve` to the answer of its first
	// query; Listening to its "listening" line; Replay is the replay as
	// the server's own "recovered commits" line times it.
	Ready, Listening, Replay time.Duration
	// OtherCPU is the CPU the rest of the machine (not the server, not
	// this harness) used meanwhile, -1 when unknown.
	OtherCPU time.Duration
}

// MeasureRecovery writes cfg.RecoveryCommits auto-commit statements, each
// its own logged commit, through cfg.RecoveryClients HTTP clients to a
// server that never checkpoints, SIGKILLs it, and times restarts on what
// the log holds.
func MeasureRecovery(ctx context.Context, cfg WritesConfig, dir string, logf func(string, ...any)) (*RecoveryResult, error) {
	p, err := StartQuiver(cfg.QuiverBin, dir, time.Minute, noCheckpointFlags...)
	if err != nil {
		return nil, err
	}
	load := WriteLoad{Addr: p.Addr, Clients: cfg.RecoveryClients, Count: cfg.RecoveryCommits, ServerPid: p.Pid()}
	w, err := load.Run(ctx)
	if err == nil && w.Failures > 0 {
		err = fmt.Errorf("%d of the writes failed; the first: %s", w.Failures, w.FirstErr)
	}
	if err == nil {
		err = checkCount(ctx, p, w.Commits)
	}
	if _, _, cerr := p.WaitLine("wrote a checkpoint", 0, 0); err == nil && cerr == nil {
		err = fmt.Errorf("the server wrote a checkpoint while the commits were logged")
	}
	p.Kill()
	if err != nil {
		return nil, fmt.Errorf("recovery: writing the log: %w", err)
	}
	rec := &RecoveryResult{Write: w}
	rec.WALBytes, rec.WALSegments = filesUnder(filepath.Join(dir, engine.WALDirName))
	logf("recovery: %d commits at %.0f/s by %d clients; log %s in %d segments; killed with SIGKILL",
		w.Commits, w.Rate(), w.Clients, bytesText(rec.WALBytes), rec.WALSegments)

	for i := range cfg.Restarts {
		for _, cold := range []bool{false, true} {
			if cold {
				if err := EvictFromPageCache(dir); err != nil {
					return nil, err
				}
			}
			t, records, err := restart(ctx, cfg.QuiverBin, dir, w.Commits)
			if err != nil {
				return nil, fmt.Errorf("recovery: restart %d: %w", i+1, err)
			}
			rec.Recovered, rec.Records = w.Commits, records
			kind := "warm"
			if cold {
				rec.Cold = append(rec.Cold, t)
				kind = "cold"
			} else {
				rec.Warm = append(rec.Warm, t)
			}
			logf("recovery: restart %d (%s cache): first answer after %v (listening %v, replay %v; other processes' CPU %v)",
				i+1, kind, t.Ready.Round(time.Millisecond), t.Listening.Round(time.Millisecond), t.Replay.Round(time.Millisecond), t.OtherCPU.Round(time.Millisecond))
		}
	}
	for i := range cfg.Restarts {
		d, err := openCopy(ctx, dir, filepath.Join(filepath.Dir(dir), "recovery-open"), w.Commits)
		if err != nil {
			return nil, fmt.Errorf("recovery: engine.Open %d: %w", i+1, err)
		}
		rec.Open = append(rec.Open, d)
		logf("recovery: engine.Open in-process %d: %v", i+1, d.Round(time.Millisecond))
	}
	return rec, nil
}

// restart starts a server on dir, waits for its first answer, checks it
// holds want :W nodes, and SIGKILLs it, so that the next restart replays
// the same log (a graceful stop would checkpoint).
func restart(ctx context.Context, bin, dir string, want int64) (RestartTiming, int64, error) {
	span := startCPUSpan()
	p, err := StartQuiver(bin, dir, 10*time.Minute, noCheckpointFlags...)
	if err != nil {
		return RestartTiming{}, 0, err
	}
	defer p.Kill()
	var t RestartTiming
	if _, err := p.Query(ctx, "RETURN 1"); err != nil {
		return t, 0, err
	}
	t.Ready = time.Since(p.Started)
	t.OtherCPU = -1
	if cpu, err := ProcCPU(p.Pid()); err == nil {
		t.OtherCPU = span.others(time.Duration(cpu) * 10 * time.Millisecond)
	}
	t.Listening = p.Listening.Sub(p.Started)
	line, _, err := p.WaitLine("recovered commits from the write-ahead log", 0, time.Second)
	if err != nil {
		return t, 0, err
	}
	if t.Replay, err = time.ParseDuration(SlogField(line, "took")); err != nil {
		return t, 0, fmt.Errorf("recovery line %q: %w", line, err)
	}
	records, err := strconv.ParseInt(SlogField(line, "records"), 10, 64)
	if err != nil {
		return t, 0, fmt.Errorf("recovery line %q: %w", line, err)
	}
	return t, records, checkCount(ctx, p, want)
}

// openCopy copies dir to tmp and times engine.Open on the copy, then
// checks the :W count and closes it (which checkpoints the copy). The
// collector runs as under `quiver serve` (GOGC 400 unless GOGC is set),
// and garbage of earlier phases is collected first.
func openCopy(ctx context.Context, dir, tmp string, want int64) (time.Duration, error) {
	os.RemoveAll(tmp)
	defer os.RemoveAll(tmp)
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		return 0, err
	}
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(inProcessGCPercent))
	}
	runtime.GC()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	start := time.Now()
	db, err := engine.Open(tmp, engine.Options{Logger: quiet, CheckpointInterval: -1, CheckpointWALBytes: 1 << 50})
	if err != nil {
		return 0, err
	}
	d := time.Since(start)
	rows, err := QueryEmbedded(ctx, db, "MATCH (n:W) RETURN count(*)")
	if err == nil && (len(rows) != 1 || rows[0][0] != want) {
		err = fmt.Errorf("the database holds %v :W nodes, want %d", rows, want)
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return d, err
}

// EvictFromPageCache drops the cached pages of every file under dir
// (posix_fadvise POSIX_FADV_DONTNEED, after an fdatasync so that no page
// is dirty), so the next read of them goes to the disk.
func EvictFromPageCache(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			return fmt.Errorf("fdatasync %s: %w", path, err)
		}
		if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
			return fmt.Errorf("fadvise %s: %w", path, err)
		}
		return nil
	})
}

// filesUnder returns the total size and the number of the regular files
// under dir.
func filesUnder(dir string) (int64, int) {
	var n int64
	var files int
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
				files++
			}
		}
		return nil
	})
	return n, files
}
