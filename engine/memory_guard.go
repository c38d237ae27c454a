package engine

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine/algo"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
)

// The server-wide memory budget (Options.MaxMemory, `quiver serve
// --max-memory`) has two guards:
//
//   - the accountant: every statement's memory.Tracker also charges the
//     budget, and a charge that takes the sum of all statements past it
//     fails the statement holding the most (memory.Budget);
//   - the heap watchdog below (Options.WatchHeap): accounting is an
//     estimate, so every watchInterval it reads the live heap the
//     collector measured, and when that passes watchFraction of the
//     budget it fails the largest statement too. It fails one at a time:
//     not while a failed statement still holds its memory, and once that
//     one closed, only on a collection that began afterwards. (The live
//     heap is the last collection's figure: judged on a collection that
//     began before the release, the failed statement's memory counted
//     again, and the next largest statement was failed for it, and so on
//     until none was left.)
//
// The process never dies of a query: one query fails with 53200.

// watchInterval is how often the watchdog reads the heap: well under the
// ~100 ms in which a query past its budget must fail.
const watchInterval = 25 * time.Millisecond

// watchFraction is the share of the budget the live heap may reach
// before the watchdog fails the largest statement. Under it the
// collector (GOMEMLIMIT is the budget) keeps up on its own.
const watchFraction = 0.9

// releaseAfterBytes is the peak above which a finished statement has the
// runtime return freed memory to the kernel at once, rather than over
// minutes (the scavenger's pace): after a large query the process's RSS
// falls back to what is live.
const releaseAfterBytes = 256 << 20

// budgetExhausted is the error of a statement the watchdog fails.
func budgetExhausted() *errs.Error {
	return errs.New(errs.CodeOutOfMemory, errs.CatResource,
		"query stopped: the server is out of memory (--max-memory) and this query held the most").
		Suggest("retry later, add LIMIT or a narrower WHERE, or ask the operator to raise --max-memory")
}

// memoryGovernor holds a database's budget.
type memoryGovernor struct {
	budget *memory.Budget // nil: no server-wide budget
	// threshold is the live heap at which the watchdog steps in, when
	// watched.
	threshold uint64
	watched   bool
	// judged is the collection of the watchdog's last failure; settle is
	// the first collection that began after a failed statement closed,
	// freed the count of those closes last seen. Only the watchdog's
	// goroutine uses them.
	judged, settle, freed uint64
	// cache is the database's algorithm projection cache (nil: none):
	// the watchdog empties it before it fails a statement.
	cache *algo.Cache
	// releasing is set while a release to the kernel is scheduled.
	releasing atomic.Bool
}

func newMemoryGovernor(limit int64, watchHeap bool) *memoryGovernor {
	g := &memoryGovernor{}
	if limit > 0 {
		g.budget = memory.NewBudget(limit)
		g.threshold = uint64(float64(limit) * watchFraction)
		g.watched = watchHeap
		if watchHeap {
			heapWatch.add(g)
		}
	}
	return g
}

func (g *memoryGovernor) close() {
	if g.watched {
		heapWatch.remove(g)
	}
}

// finished is told each statement's peak; after a large one it returns
// freed memory to the kernel, off the statement's goroutine and at most
// one release at a time.
func (g *memoryGovernor) finished(peak int64) {
	if peak < releaseAfterBytes || !g.releasing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer g.releasing.Store(false)
		debug.FreeOSMemory()
	}()
}

// heapWatch is the one goroutine that watches the heap for every open
// database with a budget; it runs while there is one.
var heapWatch watchdog

type watchdog struct {
	mu   sync.Mutex                   // protects govs and stop
	govs map[*memoryGovernor]struct{} // databases with a budget
	stop chan struct{}                // closes the goroutine; nil when none runs
}

func (w *watchdog) add(g *memoryGovernor) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.govs == nil {
		w.govs = map[*memoryGovernor]struct{}{}
	}
	w.govs[g] = struct{}{}
	if w.stop == nil {
		w.stop = make(chan struct{})
		go w.run(w.stop)
	}
}

func (w *watchdog) remove(g *memoryGovernor) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.govs, g)
	if len(w.govs) == 0 && w.stop != nil {
		close(w.stop)
		w.stop = nil
	}
}

// run reads the live heap every watchInterval; past a database's
// threshold it fails that database's largest statement, once per
// collection.
func (w *watchdog) run(stop chan struct{}) {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		metrics.Read(samples)
		live, cycle := samples[0].Value.Uint64(), samples[1].Value.Uint64()
		w.mu.Lock()
		for g := range w.govs {
			g.judge(live, cycle)
		}
		w.mu.Unlock()
	}
}

// judge acts on one reading of the live heap in collection cycle: past
// the threshold, and at most once per cycle, it empties the algorithm
// projection cache (cached projections are no statement's) or, when the
// cache held nothing, fails the largest statement. Only the watchdog's
// goroutine calls it.
func (g *memoryGovernor) judge(live, cycle uint64) {
	if f := g.budget.Freed(); f != g.freed {
		// A failed statement has given its memory back. The collection
		// under way, the one after cycle, may have begun before: the one
		// after that is the first whose figure is sure to be without it.
		g.freed, g.settle = f, cycle+2
	}
	if live < g.threshold || cycle == g.judged || cycle < g.settle {
		return
	}
	if g.cache != nil && g.cache.Clear() > 0 || g.budget.FailLargest(budgetExhausted()) {
		g.judged = cycle
	}
}
