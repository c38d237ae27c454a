package bench

import (
	"slices"
	"time"
)

// LatencySummary is the distribution of one load's acknowledged requests'
// latencies.
type LatencySummary struct {
	N             int
	P50, P99, Max time.Duration
	Mean          time.Duration
}

// Percentile returns the p-th percentile (0 < p ≤ 100) of sorted by the
// nearest-rank method: the smallest value with at least p% of the values
// at or below it, so P99 of 100 values is the 99th and of 1,000 the
// 990th. No interpolation: every percentile reported is a latency that was
// measured. Zero for no values.
func Percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	// rank = ceil(p/100 · n), computed in integers so that 99% of 100
	// is exactly 99 and not 99.00000000000001 → 100.
	pm := int64(p*1000 + 0.5) // per hundred-thousand
	rank := int((pm*int64(n) + 100_000 - 1) / 100_000)
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}

// Summarize sorts lat in place and summarizes it.
func Summarize(lat []time.Duration) LatencySummary {
	slices.Sort(lat)
	s := LatencySummary{N: len(lat), P50: Percentile(lat, 50), P99: Percentile(lat, 99)}
	if len(lat) == 0 {
		return s
	}
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	s.Max = lat[len(lat)-1]
	s.Mean = sum / time.Duration(len(lat))
	return s
}

// MedianOf returns the median of xs (the mean of the middle two for an
// even count) without changing xs; 0 for none.
func MedianOf[T int64 | float64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
