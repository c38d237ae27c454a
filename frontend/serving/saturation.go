package serving

import (
	"sync/atomic"
	"time"
)

// Saturation records when a server-wide connection ceiling was last
// reached: a connection had to be evicted to admit another, or was
// refused. Health reports the connections as degraded while the last
// such hit is less than Window old, so that a monitor probing every few
// seconds sees a flood that keeps the server at its ceiling, and sees it
// end. One client address at its own ceiling is not counted: that
// client is limited, the others are not. The zero value is ready; a nil
// *Saturation records nothing and is never saturated.
type Saturation struct {
	// Window is how long a hit keeps the connections degraded; zero
	// means DefaultSaturationWindow. Set it before use.
	Window time.Duration
	last   atomic.Int64 // unix nanoseconds of the last hit; 0: none
	hits   atomic.Int64 // hits since start
}

// DefaultSaturationWindow is how long health stays degraded after a
// ceiling was last reached: longer than a typical probe interval (a
// Kubernetes probe's 10 s default), so that a flood does not slip
// between two probes.
const DefaultSaturationWindow = 10 * time.Second

// Hit records that a ceiling was reached now.
func (s *Saturation) Hit() {
	if s == nil {
		return
	}
	s.last.Store(time.Now().UnixNano())
	s.hits.Add(1)
}

// Saturated reports whether a ceiling was reached within the window.
func (s *Saturation) Saturated() bool {
	if s == nil {
		return false
	}
	last := s.last.Load()
	if last == 0 {
		return false
	}
	w := s.Window
	if w <= 0 {
		w = DefaultSaturationWindow
	}
	return time.Since(time.Unix(0, last)) < w
}

// Hits is the number of times a ceiling was reached.
func (s *Saturation) Hits() int64 {
	if s == nil {
		return 0
	}
	return s.hits.Load()
}
