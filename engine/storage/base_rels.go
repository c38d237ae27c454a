package storage

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Opening a base rebuilds the relationship table from the CSRs and checks
// the two directions against each other: O(edges) work that dominated the
// time to open a bulk-loaded graph when it ran on one core. It splits by
// node range, because every pass below writes or reads disjoint slots per
// source node.

// minOpenRange is the fewest nodes a worker takes at a time; below two of
// them the pass runs on the caller's goroutine.
const minOpenRange = 1 << 14

// forNodeRanges runs fn over the node ids [0, n) cut into ranges, on
// GOMAXPROCS goroutines. It returns one of the errors fn returned (a
// corrupt file is reported either way), nil when none did.
func forNodeRanges(n uint64, fn func(lo, hi uint64) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers <= 1 || n < 2*minOpenRange {
		return fn(0, n)
	}
	step := max(minOpenRange, n/uint64(workers*8))
	var next atomic.Uint64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				lo := next.Add(step) - step
				if lo >= n {
					return
				}
				if err := fn(lo, min(lo+step, n)); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// forEachParallel runs fn(0..n-1) on up to GOMAXPROCS goroutines and
// returns the error of the lowest i that failed.
func forEachParallel(n int, fn func(i int) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = fn(i)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
