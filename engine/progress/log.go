package progress

// Long work reports its progress in the server log: a COPY … FROM, a
// checkpoint (the CHECKPOINT statement's, the timer's, the log size's,
// the shutdown's) and an algorithm call's projection, which builds the
// graph the algorithms run on (the first call on a version of the
// graph; later ones find it in the projection cache). Work that ends
// within Log.After logs nothing; past it, a line every Log.Every with
// the phase, what is done of what total and the rate, and one at the end
// with the total time. The work only counts
// (Tracker); a goroutine of its own reads the counts and logs.

import (
	"fmt"
	"log/slog"
	"math"
	"sync/atomic"
	"time"
)

const (
	// DefaultLogAfter is how long work runs before its progress is
	// logged (Log.After).
	DefaultLogAfter = 2 * time.Second
	// DefaultLogEvery is the time between two progress lines of long
	// work (Log.Every).
	DefaultLogEvery = 5 * time.Second
)

// Log is where and when long work logs its progress: the database's
// logger and its Options.ProgressLogAfter and ProgressLogEvery.
type Log struct {
	Logger *slog.Logger
	// After is how long work runs before its progress is logged (zero:
	// DefaultLogAfter, negative: never); Every the time between two
	// lines (zero: DefaultLogEvery).
	After, Every time.Duration
}

// Work is one piece of work whose progress may be logged. Its tracker
// is nil when progress logging is off.
type Work struct {
	t      *Tracker
	log    *slog.Logger
	what   string
	attrs  []any
	start  time.Time
	after  time.Duration
	stop   func()
	logged atomic.Bool
}

// Start starts watching work named what (the log lines' subject:
// "COPY", "checkpoint", "algorithm projection"); attrs go on every line.
// The caller reports through w.Tracker and ends with w.End or w.Quiet.
func (l Log) Start(what string, attrs ...any) *Work {
	after, every := l.After, l.Every
	if after < 0 {
		return &Work{}
	}
	if after == 0 {
		after = DefaultLogAfter
	}
	if every <= 0 {
		every = DefaultLogEvery
	}
	w := &Work{t: New(nil), log: l.Logger, what: what, attrs: attrs, start: time.Now(), after: after}
	w.stop = Watch(w.t, after, every, w.line)
	return w
}

// Tracker is what the work reports its advance to; nil (which records
// nothing) when progress logging is off.
func (w *Work) Tracker() *Tracker { return w.t }

// line logs one progress line.
func (w *Work) line(s Snapshot) {
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
func phaseName(s Snapshot) string {
	if s.Index == 0 {
		return "starting"
	}
	return fmt.Sprintf("%d %s", s.Index, s.Name)
}

// End stops watching and, if the work was long (it ran past the
// threshold or a progress line was logged), logs its end with the total
// time, err if it failed, and attrs.
func (w *Work) End(err error, attrs ...any) {
	if !w.Quiet() {
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

// Quiet stops watching without a line of its own (for work whose end
// is logged anyway: a checkpoint's) and reports whether the work was long.
func (w *Work) Quiet() bool {
	if w.t == nil {
		return false
	}
	w.stop()
	w.t.End()
	return w.logged.Load() || time.Since(w.start) >= w.after
}
