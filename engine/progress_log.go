package engine

// Long work reports its progress in the server log: a COPY … FROM, a
// checkpoint (the CHECKPOINT statement's, the timer's, the log size's,
// the shutdown's) and an algorithm call's projection, which builds the
// graph the algorithms run on (the first call on a version of the
// graph; later ones find it in the projection cache). Work that ends
// within Options.ProgressLogAfter logs nothing; past it, a line every
// ProgressLogEvery with the phase, what is done of what total and the
// rate, and one at the end with the total time. The work only counts
// (package progress); a goroutine of its own reads the counts and logs.

import (
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine/progress"
)

const (
	// DefaultProgressLogAfter is how long work runs before its progress
	// is logged (Options.ProgressLogAfter).
	DefaultProgressLogAfter = 2 * time.Second
	// DefaultProgressLogEvery is the time between two progress lines of
	// long work (Options.ProgressLogEvery).
	DefaultProgressLogEvery = 5 * time.Second
)

// longWork is one piece of work whose progress may be logged. Its
// tracker is nil when progress logging is off.
type longWork struct {
	t      *progress.Tracker
	log    *slog.Logger
	what   string
	attrs  []any
	start  time.Time
	after  time.Duration
	stop   func()
	logged atomic.Bool
}

// startLongWork starts watching work named what (the log lines' subject:
// "COPY", "checkpoint", "algorithm projection"); attrs go on every line.
// The caller reports through w.t and ends with w.end or w.quiet.
func (db *DB) startLongWork(what string, attrs ...any) *longWork {
	after, every := db.opts.ProgressLogAfter, db.opts.ProgressLogEvery
	if after < 0 {
		return &longWork{}
	}
	if after == 0 {
		after = DefaultProgressLogAfter
	}
	if every <= 0 {
		every = DefaultProgressLogEvery
	}
	w := &longWork{t: progress.New(nil), log: db.log, what: what, attrs: attrs, start: time.Now(), after: after}
	w.stop = progress.Watch(w.t, after, every, w.line)
	return w
}

// line logs one progress line.
func (w *longWork) line(s progress.Snapshot) {
	w.logged.Store(true)
	args := append([]any(nil), w.attrs...)
	args = append(args, "phase", phaseName(s), "done", s.Items)
	if s.TotalItems > 0 {
		args = append(args, "total", s.TotalItems)
	}
	if s.Unit != "" {
		args = append(args, "unit", s.Unit, "per_second", math.Round(s.ItemsPerSecond()))
	}
	if s.Bytes > 0 || s.TotalBytes > 0 {
		args = append(args, "bytes", s.Bytes)
		if s.TotalBytes > 0 {
			args = append(args, "total_bytes", s.TotalBytes)
		}
		args = append(args, "bytes_per_second", math.Round(s.BytesPerSecond()))
	}
	if eta, ok := s.ETA(); ok {
		args = append(args, "phase_eta", eta.Round(100*time.Millisecond))
	}
	args = append(args, "elapsed", time.Since(w.start).Round(100*time.Millisecond))
	w.log.Info(w.what+" in progress", args...)
}

// phaseName names a snapshot's phase as the log shows it: its number and
// name ("2 creating nodes"), or "starting" before the first.
func phaseName(s progress.Snapshot) string {
	if s.Index == 0 {
		return "starting"
	}
	return fmt.Sprintf("%d %s", s.Index, s.Name)
}

// end stops watching and, if the work was long (it ran past the
// threshold or a progress line was logged), logs its end with the total
// time, err if it failed, and attrs.
func (w *longWork) end(err error, attrs ...any) {
	if !w.quiet() {
		return
	}
	args := append(append([]any(nil), w.attrs...), attrs...)
	args = append(args, "took", time.Since(w.start).Round(time.Millisecond))
	if err != nil {
		w.log.Warn(w.what+" failed", append(args, "err", err)...)
		return
	}
	w.log.Info(w.what+" done", args...)
}

// quiet stops watching without a line of its own (for work whose end
// is logged anyway: a checkpoint's) and reports whether the work was long.
func (w *longWork) quiet() bool {
	if w.t == nil {
		return false
	}
	w.stop()
	w.t.End()
	return w.logged.Load() || time.Since(w.start) >= w.after
}
