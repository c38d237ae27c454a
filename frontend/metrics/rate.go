package metrics

import (
	"sync"
	"time"
)

// RateWindow is the span queries_per_second (GET /api/v1/status) averages
// over.
const RateWindow = time.Minute

// rateWindow turns a counter into a rate over the last RateWindow: a
// sampler records the counter once a second, and the rate is the
// difference between its value now and the oldest sample in the window,
// divided by the time between them. In the first minute that oldest
// sample is the start (value 0), so the rate covers the time since start.
type rateWindow struct {
	mu      sync.Mutex // protects samples and next
	samples [rateSlots]rateSample
	next    int
}

// rateSlots holds a window of one-second samples and one more, so the
// oldest one still in the window is never overwritten.
const rateSlots = int(RateWindow/time.Second) + 2

type rateSample struct {
	at time.Time
	n  uint64
}

func (w *rateWindow) init(start time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.samples = [rateSlots]rateSample{}
	w.samples[0] = rateSample{at: start}
	w.next = 1
}

func (w *rateWindow) add(at time.Time, n uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.samples[w.next] = rateSample{at: at, n: n}
	w.next = (w.next + 1) % rateSlots
}

// perSecond is the rate of the counter, whose value at now is n. Less
// than a second of history counts as one second, so a burst just after
// start does not read as a huge rate.
func (w *rateWindow) perSecond(now time.Time, n uint64) float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	from := now.Add(-RateWindow)
	var oldest *rateSample
	for i := range w.samples {
		s := &w.samples[i]
		if s.at.IsZero() || s.at.Before(from) || s.at.After(now) {
			continue
		}
		if oldest == nil || s.at.Before(oldest.at) {
			oldest = s
		}
	}
	if oldest == nil || n < oldest.n {
		return 0
	}
	span := now.Sub(oldest.at)
	if span < time.Second {
		span = time.Second
	}
	return float64(n-oldest.n) / span.Seconds()
}
