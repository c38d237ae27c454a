package metrics

import (
	"testing"
	"time"
)

// The rate covers the last minute: the oldest sample in it against the
// value now; in the first minute, the time since start.
func TestRateWindow(t *testing.T) {
	var w rateWindow
	t0 := time.Unix(1_700_000_000, 0)
	w.init(t0)
	if got := w.perSecond(t0, 0); got != 0 {
		t.Fatalf("at start: %v", got)
	}
	if got := w.perSecond(t0.Add(100*time.Millisecond), 5); got != 5 {
		t.Fatalf("5 in the first 100 ms reads as %v/s, want 5 (a second at least)", got)
	}
	// 10 queries a second for 30 s.
	for s := 1; s <= 30; s++ {
		w.add(t0.Add(time.Duration(s)*time.Second), uint64(10*s))
	}
	if got := w.perSecond(t0.Add(30*time.Second), 300); got != 10 {
		t.Fatalf("after 30 s at 10/s: %v", got)
	}
	// Then 2 a second for 120 s: the window forgets the first phase.
	for s := 31; s <= 150; s++ {
		w.add(t0.Add(time.Duration(s)*time.Second), uint64(300+2*(s-30)))
	}
	now := t0.Add(150 * time.Second)
	if got := w.perSecond(now, 540); got != 2 {
		t.Fatalf("after 120 s at 2/s: %v", got)
	}
	// Idle for the last 60 s: nothing ended in the window.
	for s := 151; s <= 215; s++ {
		w.add(t0.Add(time.Duration(s)*time.Second), 540)
	}
	if got := w.perSecond(t0.Add(215*time.Second), 540); got != 0 {
		t.Fatalf("idle: %v", got)
	}
}

// The registry's rate moves with real statements.
func TestQueriesPerSecond(t *testing.T) {
	r := NewRegistry()
	defer r.Close()
	for range 30 {
		r.StatementEnded(time.Millisecond, nil)
	}
	// Less than a second since start counts as one second.
	if got := r.QueriesPerSecond(); got <= 0 || got > 30 {
		t.Fatalf("30 statements just after start: %v/s", got)
	}
}
