package memory

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
)

// The server-wide memory budget (engine.Options.MaxMemory, `quiver serve
// --max-memory`) has two guards, which a Governor holds:
//
//   - the accountant: every statement's Tracker also charges the
//     budget, and a charge that takes the sum of all statements past it
//     fails the statement holding the most (Budget);
//   - the heap watchdog below (engine.Options.WatchHeap): accounting is an
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
// falls back to what is live. A forced collection also resets the
// collector's goal, which the large query's live heap had raised (GOGC
// 400 under quiver serve: five times that heap), so that the next
// statement's garbage cannot grow the process that far.
//
// Statements the estimates undercount would escape a test of the charged
// peak alone (the 60,000-term OR of issue 27 charged 16 KB and held 2.3
// GB, and the UNWIND after it took the process to 7.6 GB). So a
// statement that charged releaseCheckBytes or more also looks at the
// live heap the collector last measured, and has the release when that
// grew by releaseAfterBytes since the last one.
//
// Under a small max_memory_per_query a large statement is smaller: the
// threshold is a quarter of the operator's limit when that is less
// (ReleaseThreshold).
const (
	releaseAfterBytes = 256 << 20
	releaseCheckBytes = 16 << 20
)

// ReleaseThreshold is releaseAfterBytes, or a quarter of the operator's
// max_memory_per_query when that is less (zero: none), at least
// releaseCheckBytes.
func ReleaseThreshold(perQuery int64) int64 {
	if perQuery <= 0 {
		return releaseAfterBytes
	}
	return max(releaseCheckBytes, min(releaseAfterBytes, perQuery/4))
}

// budgetExhausted is the error of a statement the watchdog fails.
func budgetExhausted() *errs.Error {
	return errs.New(errs.CodeOutOfMemory, errs.CatResource,
		"query stopped: the server is out of memory (--max-memory) and this query held the most").
		Suggest("retry later, add LIMIT or a narrower WHERE, or ask the operator to raise --max-memory")
}

// Clearer is a cache the watchdog may empty before it fails a statement
// (the algorithm projection cache): Clear drops everything and returns
// the bytes it held.
type Clearer interface{ Clear() int64 }

// Governor holds a database's budget, its part of the heap watchdog and
// the release of freed memory to the kernel after large statements.
type Governor struct {
	budget *Budget // nil: no server-wide budget
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
	cache Clearer
	// releasing is set while a release to the kernel runs; pending when
	// a statement ended since that one began, and needs one after it.
	releasing, pending atomic.Bool
	// releaseAfter is releaseAfterBytes (SetReleaseAfter); baseline is
	// the live heap after the last release.
	releaseAfter int64
	baseline     atomic.Uint64
}

// NewGovernor returns the governor of a budget of limit bytes (none
// when limit ≤ 0); watchHeap puts it under the heap watchdog.
func NewGovernor(limit int64, watchHeap bool) *Governor {
	g := &Governor{releaseAfter: releaseAfterBytes}
	g.baseline.Store(liveHeap())
	if limit > 0 {
		g.budget = NewBudget(limit)
		g.threshold = uint64(float64(limit) * watchFraction)
		g.watched = watchHeap
		if watchHeap {
			heapWatch.add(g)
		}
	}
	return g
}

// NewGraphGovernor returns the governor of a graph's budget of limit
// bytes inside parent's (ChildBudget): not under the heap watchdog, which
// watches the server's. limit ≤ 0, or beyond parent's, is parent's limit.
func NewGraphGovernor(limit int64, parent *Governor, name string) *Governor {
	g := &Governor{releaseAfter: releaseAfterBytes}
	g.baseline.Store(liveHeap())
	pb := parent.Budget()
	if pb == nil {
		if limit > 0 {
			g.budget = ChildBudget(limit, nil, name)
		}
		return g
	}
	if limit <= 0 || limit > pb.Limit() {
		limit = pb.Limit()
	}
	g.budget = ChildBudget(limit, pb, name)
	return g
}

// Budget is the server-wide budget statements charge; nil without one.
func (g *Governor) Budget() *Budget { return g.budget }

// SetCache names the cache the watchdog empties before it fails a
// statement. Call it before statements run.
func (g *Governor) SetCache(c Clearer) { g.cache = c }

// SetReleaseAfter sets the peak above which a finished statement returns
// freed memory to the kernel (ReleaseThreshold). Call it before
// statements run.
func (g *Governor) SetReleaseAfter(n int64) { g.releaseAfter = n }

// Threshold is the live heap at which the watchdog steps in.
func (g *Governor) Threshold() uint64 { return g.threshold }

// Close takes the governor off the heap watchdog.
func (g *Governor) Close() {
	if g.watched {
		heapWatch.remove(g)
	}
}

// Finished is told each statement's peak; after a large one, or one
// that ends with the live heap grown since the last release, it returns
// freed memory to the kernel: off the statement's goroutine, one release
// at a time, and one more after the one under way when a large statement
// ends during it (the memory of that statement is only garbage now).
func (g *Governor) Finished(peak int64) {
	if peak < releaseCheckBytes {
		return
	}
	if peak < g.releaseAfter && liveHeap() < g.baseline.Load()+uint64(g.releaseAfter) {
		return
	}
	g.pending.Store(true)
	if g.releasing.CompareAndSwap(false, true) {
		go g.release()
	}
}

// release returns freed memory to the kernel while a release is pending.
func (g *Governor) release() {
	for {
		g.pending.Store(false)
		debug.FreeOSMemory()
		g.baseline.Store(liveHeap())
		g.releasing.Store(false)
		// A statement that ended during the release found it under way
		// and left it pending.
		if !g.pending.Load() || !g.releasing.CompareAndSwap(false, true) {
			return
		}
	}
}

// liveHeap is the live heap the collector measured at its last cycle.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// heapWatch is the one goroutine that watches the heap for every open
// database with a budget; it runs while there is one.
var heapWatch watchdog

type watchdog struct {
	mu   sync.Mutex             // protects govs, stop and paced
	govs map[*Governor]struct{} // databases with a budget
	stop chan struct{}          // closes the goroutine; nil when none runs
	// paced holds the collector's GOGC from before the watchdog lowered
	// it (pace); 0 while it is not lowered.
	paced int
}

// pressureGCPercent is the collector's GOGC while running statements
// hold more than a large statement's worth of memory (releaseAfter)
// between them. quiver serve runs the collector at GOGC 400, which lets
// garbage grow the heap to five times what is live: cheap for small
// statements, but under one that holds a gigabyte it let the process
// reach three to four times the statement's limit. At Go's default of
// 100 the garbage is at most what is live (docs/limits.md has the
// figures).
const pressureGCPercent = 100

// pace lowers the collector's GOGC to pressureGCPercent while the
// statements of some database hold at least its releaseAfter, and puts
// it back once they all hold less than half that. A GOGC already at or
// under pressureGCPercent (or off), as the operator may set it, is left
// alone.
func (w *watchdog) pace() {
	w.mu.Lock()
	defer w.mu.Unlock()
	heavy, light := false, true
	for g := range w.govs {
		used := g.budget.Used() - g.budget.Held() // the statements' part
		heavy = heavy || used >= g.releaseAfter
		light = light && used < g.releaseAfter/2
	}
	switch {
	case heavy && w.paced == 0:
		if prev := debug.SetGCPercent(pressureGCPercent); prev > pressureGCPercent {
			w.paced = prev
		} else {
			debug.SetGCPercent(prev)
		}
	case light && w.paced != 0:
		w.unpaceLocked()
	}
}

// unpaceLocked puts back the GOGC pace lowered.
func (w *watchdog) unpaceLocked() {
	if w.paced != 0 {
		debug.SetGCPercent(w.paced)
		w.paced = 0
	}
}

func (w *watchdog) add(g *Governor) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.govs == nil {
		w.govs = map[*Governor]struct{}{}
	}
	w.govs[g] = struct{}{}
	if w.stop == nil {
		w.stop = make(chan struct{})
		go w.run(w.stop)
	}
}

func (w *watchdog) remove(g *Governor) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.govs, g)
	if len(w.govs) == 0 && w.stop != nil {
		close(w.stop)
		w.stop = nil
		w.unpaceLocked()
	}
}

// run reads the live heap every watchInterval; past a database's
// threshold it fails that database's largest statement, once per
// collection. It paces the collector too.
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
			g.Judge(live, cycle)
		}
		w.mu.Unlock()
		w.pace()
	}
}

// Judge acts on one reading of the live heap in collection cycle: past
// the threshold, and at most once per cycle, it empties the algorithm
// projection cache (cached projections are no statement's) or, when the
// cache held nothing, fails the largest statement; true when it acted.
// Only the watchdog's goroutine calls it (and tests, driving it with
// readings of their own).
func (g *Governor) Judge(live, cycle uint64) bool {
	if f := g.budget.Freed(); f != g.freed {
		// A failed statement has given its memory back. The collection
		// under way, the one after cycle, may have begun before: the one
		// after that is the first whose figure is sure to be without it.
		g.freed, g.settle = f, cycle+2
	}
	if live < g.threshold || cycle == g.judged || cycle < g.settle {
		return false
	}
	if g.cache != nil && g.cache.Clear() > 0 || g.budget.FailLargest(budgetExhausted()) {
		g.judged = cycle
		return true
	}
	return false
}
