// Package progress carries the advance of long work (an import, a COPY
// FROM, a checkpoint, an algorithm's projection) from the code doing it
// to whoever shows it: the import's terminal bar or plain lines
// (cmd/quiver) and the server log (Log, log.go). The work only adds to
// counters, a few atomic adds per thousand rows; a watcher reads them on
// its own clock (Watch), so the work never waits on a display, and the
// engine needs no terminal library to be watched. It imports nothing of
// Quiver.
package progress

import (
	"sync"
	"sync/atomic"
	"time"
)

// Phase is one step of a piece of work: work goes through its phases in
// order, one at a time.
type Phase struct {
	Name string
	// Unit names what the items count: "rows", "files", "nodes".
	Unit string
	// TotalBytes and TotalItems are what the phase will have done when
	// it ends; zero when not known in advance.
	TotalBytes, TotalItems int64
}

// Tracker is the advance of one piece of work. A nil *Tracker is valid
// and records nothing, so code reports unconditionally.
type Tracker struct {
	bytes, items atomic.Int64
	mu           struct {
		sync.Mutex // guards the phase, its start and the phase hook's calls
		phase      Phase
		index      int
		started    time.Time // of the work
		phaseStart time.Time
		ended      bool
	}
	onPhase func(Snapshot)
}

// New returns a tracker. onPhase, when set, is called as each phase
// begins (a snapshot with nothing done yet) and as it ends (by Begin of
// the next, or End) with its final snapshot (Ended set), on the goroutine
// that began or ended it, which waits for it: it must be quick and must
// not call the tracker.
func New(onPhase func(Snapshot)) *Tracker {
	t := &Tracker{onPhase: onPhase}
	t.mu.started = time.Now()
	return t
}

// Begin ends the current phase, if any, and starts p with its counters
// at zero. The previous phase's work must have finished (its Adds
// returned).
func (t *Tracker) Begin(p Phase) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endLocked()
	t.mu.phase, t.mu.index, t.mu.ended = p, t.mu.index+1, false
	t.mu.phaseStart = time.Now()
	t.bytes.Store(0)
	t.items.Store(0)
	if t.onPhase != nil {
		t.onPhase(t.snapshotLocked())
	}
}

// Add counts bytes and items done in the current phase. It is safe for
// concurrent use.
func (t *Tracker) Add(bytes, items int64) {
	if t == nil {
		return
	}
	if bytes != 0 {
		t.bytes.Add(bytes)
	}
	if items != 0 {
		t.items.Add(items)
	}
}

// SetTotalItems changes the current phase's item total, for a phase whose
// size becomes known once it runs.
func (t *Tracker) SetTotalItems(n int64) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.mu.phase.TotalItems = n
	t.mu.Unlock()
}

// End ends the last phase (calling the phase hook). Ending twice, or
// before any phase, does nothing.
func (t *Tracker) End() {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.endLocked()
}

func (t *Tracker) endLocked() {
	if t.mu.index == 0 || t.mu.ended {
		return
	}
	t.mu.ended = true
	if t.onPhase != nil {
		t.onPhase(t.snapshotLocked())
	}
}

// Snapshot reads the tracker: the current phase (or the last, once
// ended) and its counts.
func (t *Tracker) Snapshot() Snapshot {
	if t == nil {
		return Snapshot{}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snapshotLocked()
}

func (t *Tracker) snapshotLocked() Snapshot {
	now := time.Now()
	s := Snapshot{Phase: t.mu.phase, Index: t.mu.index, Ended: t.mu.ended,
		Bytes: t.bytes.Load(), Items: t.items.Load(), Elapsed: now.Sub(t.mu.started)}
	if t.mu.index > 0 {
		s.PhaseElapsed = now.Sub(t.mu.phaseStart)
	}
	return s
}

// Snapshot is a tracker's state at one moment.
type Snapshot struct {
	Phase
	// Index is the phase's number from 1 (0: no phase began yet).
	Index int
	// Ended is set in the snapshot the phase hook receives as a phase
	// ends, and in later snapshots of the last phase once End was called.
	Ended        bool
	Bytes, Items int64
	// PhaseElapsed is the time since the phase began, Elapsed since the
	// tracker was made.
	PhaseElapsed, Elapsed time.Duration
}

// BytesPerSecond is the phase's mean byte rate so far.
func (s Snapshot) BytesPerSecond() float64 { return rate(s.Bytes, s.PhaseElapsed) }

// ItemsPerSecond is the phase's mean item rate so far.
func (s Snapshot) ItemsPerSecond() float64 { return rate(s.Items, s.PhaseElapsed) }

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Fraction is how much of the phase is done, from its bytes if their
// total is known, else from its items; false when neither total is.
func (s Snapshot) Fraction() (float64, bool) {
	switch {
	case s.TotalBytes > 0:
		return min(1, float64(s.Bytes)/float64(s.TotalBytes)), true
	case s.TotalItems > 0:
		return min(1, float64(s.Items)/float64(s.TotalItems)), true
	}
	return 0, false
}

// ETA is the time the phase should still take at its mean rate so far;
// false when its total is unknown or nothing is done yet.
func (s Snapshot) ETA() (time.Duration, bool) {
	f, ok := s.Fraction()
	if !ok || f <= 0 {
		return 0, false
	}
	return time.Duration(float64(s.PhaseElapsed) * (1 - f) / f), true
}

// Watch calls fn with t's snapshot after first and then every interval,
// from its own goroutine, until the returned stop is called; stop waits
// for a call under way to return, so that nothing is shown after it.
func Watch(t *Tracker, first, every time.Duration, fn func(Snapshot)) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		timer := time.NewTimer(first)
		defer timer.Stop()
		for {
			select {
			case <-quit:
				return
			case <-timer.C:
			}
			fn(t.Snapshot())
			timer.Reset(every)
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(quit)
			<-done
		})
	}
}
