package exec

import (
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/exec/idset"
)

// runJobs runs fn over the jobs 0..n-1 on up to workers goroutines (on the
// caller's goroutine when that is one), each taking the next job from a
// shared counter and checking for cancellation before it. fn gets the
// worker's number, so a worker can keep scratch or partial results of its
// own without locks. The first worker's error in worker order is returned.
func runJobs(c *Context, n, workers int, fn func(w, i int) error) error {
	workers = max(1, min(workers, n))
	var next atomic.Int64
	work := func(w int) error {
		for {
			i := int(next.Add(1) - 1)
			if i >= n {
				return nil
			}
			if err := c.CheckCancel(); err != nil {
				return err
			}
			if err := fn(w, i); err != nil {
				return err
			}
		}
	}
	if workers == 1 {
		return work(0)
	}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() { errs[w] = work(w) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// runChunks runs fn over ids in chunks of countChunk, on up to
// Parallelism goroutines; fn gets the chunk's number, so results can be
// gathered in id order.
func runChunks(c *Context, ids idset.NodeSpan, fn func(i int, ids []uint32) error) error {
	nchunks := ids.Chunks(countChunk)
	workers := max(1, min(c.Parallelism, nchunks))
	bufs := make([][]uint32, workers)
	return runJobs(c, nchunks, workers, func(w, i int) error {
		if bufs[w] == nil {
			bufs[w] = make([]uint32, countChunk)
		}
		return fn(i, ids.Chunk(i, countChunk, bufs[w]))
	})
}
