package floodtest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// maxFailureKinds bounds the distinct failure messages a Latencies
// keeps; further ones are counted together, so that a run of failures
// that each name a different body cannot grow without bound.
const maxFailureKinds = 8

// otherFailures is the key the failures past maxFailureKinds are counted
// under.
const otherFailures = "(other failures)"

// Latencies records the requests a normal client made beside a flood:
// each one's latency, failed ones included, and the failures counted by
// message. It is safe for concurrent use by many clients.
type Latencies struct {
	mu struct {
		sync.Mutex // protects the fields below
		all        []time.Duration
		failed     int
		failures   map[string]int
	}
}

// Add records a request that took d and failed with err (nil: it
// succeeded).
func (l *Latencies) Add(d time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mu.all = append(l.mu.all, d)
	if err == nil {
		return
	}
	l.mu.failed++
	if l.mu.failures == nil {
		l.mu.failures = map[string]int{}
	}
	key := err.Error()
	if _, seen := l.mu.failures[key]; !seen && len(l.mu.failures) >= maxFailureKinds {
		key = otherFailures
	}
	l.mu.failures[key]++
}

// RunClient calls request one after the other for d, each timed, and
// goes on past d until it made at least minRequests (a machine slowed
// down by other work), but not past 10d: under the race detector on a
// loaded two-core machine a wire session beside a flood took 360 ms at
// the median, and 3d (6 s) held 18 of the 20 it asks for.
// request returns nil when the server answered as it should.
func RunClient(d time.Duration, minRequests int, request func() error) *Latencies {
	l := &Latencies{}
	start := time.Now()
	for n := 0; time.Since(start) < d || (n < minRequests && time.Since(start) < 10*d); n++ {
		began := time.Now()
		err := request()
		l.Add(time.Since(began), err)
	}
	return l
}

// Summary is what a Latencies recorded.
type Summary struct {
	Requests, Failed int
	P50, P99, Max    time.Duration // over every request, failed ones included
	Failures         map[string]int
}

// Summary summarises the requests recorded so far.
func (l *Latencies) Summary() Summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Summary{Requests: len(l.mu.all), Failed: l.mu.failed, Failures: make(map[string]int, len(l.mu.failures))}
	for k, v := range l.mu.failures {
		s.Failures[k] = v
	}
	if len(l.mu.all) > 0 {
		sorted := slices.Clone(l.mu.all)
		slices.Sort(sorted)
		s.P50, s.P99, s.Max = percentile(sorted, 50), percentile(sorted, 99), sorted[len(sorted)-1]
	}
	return s
}

// percentile is the p-th percentile of sorted (not empty): the smallest
// value at least p% of the values do not exceed.
func percentile(sorted []time.Duration, p int) time.Duration {
	return sorted[(len(sorted)*p+99)/100-1]
}

// OK is the number of requests that succeeded.
func (s Summary) OK() int { return s.Requests - s.Failed }

func (s Summary) String() string {
	rate := 0.0
	if s.Requests > 0 {
		rate = 100 * float64(s.OK()) / float64(s.Requests)
	}
	return fmt.Sprintf("%d of %d succeeded (%.2f%%), p50 %v, p99 %v, max %v, failures %v",
		s.OK(), s.Requests, rate, s.P50, s.P99, s.Max, s.Failures)
}

// Check logs the summary under what and fails t unless at least
// minRequests requests were made, at least minPercent% of them
// succeeded, and the p99 latency is at most maxP99.
func (l *Latencies) Check(t testing.TB, what string, minRequests, minPercent int, maxP99 time.Duration) {
	t.Helper()
	s := l.Summary()
	t.Logf("%s: %v", what, s)
	if s.Requests < minRequests || s.OK()*100 < s.Requests*minPercent {
		t.Errorf("%s: %d of %d requests succeeded; want at least %d%% of at least %d to succeed (failures %v)",
			what, s.OK(), s.Requests, minPercent, minRequests, s.Failures)
	}
	if s.P99 > maxP99 {
		t.Errorf("%s: p99 latency %v, want under %v", what, s.P99, maxP99)
	}
}
