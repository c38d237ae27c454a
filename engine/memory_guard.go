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
// (releaseThreshold).
const (
	releaseAfterBytes = 256 << 20
	releaseCheckBytes = 16 << 20
)

// releaseThreshold is releaseAfterBytes, or a quarter of the operator's
// max_memory_per_query when that is less (zero: none), at least
// releaseCheckBytes.
func releaseThreshold(perQuery int64) int64 {
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
	// releasing is set while a release to the kernel runs; pending when
	// a statement ended since that one began, and needs one after it.
	releasing, pending atomic.Bool
	// releaseAfter is releaseAfterBytes (tests shrink it); baseline is
	// the live heap after the last release.
	releaseAfter int64
	baseline     atomic.Uint64
}

func newMemoryGovernor(limit int64, watchHeap bool) *memoryGovernor {
	g := &memoryGovernor{releaseAfter: releaseAfterBytes}
	g.baseline.Store(liveHeap())
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

// MemoryCharged is what the statements running on db are charged
// together (their accountants' figures, as the server's budget sums
// them); 0 without a budget (Options.MaxMemory).
func (db *DB) MemoryCharged() int64 {
	if db.mem.budget == nil {
		return 0
	}
	return db.mem.budget.Used()
}

func (g *memoryGovernor) close() {
	if g.watched {
		heapWatch.remove(g)
	}
}

// finished is told each statement's peak; after a large one, or one
// that ends with the live heap grown since the last release, it returns
// freed memory to the kernel: off the statement's goroutine, one release
// at a time, and one more after the one under way when a large statement
// ends during it (the memory of that statement is only garbage now).
func (g *memoryGovernor) finished(peak int64) {
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
func (g *memoryGovernor) release() {
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
	mu   sync.Mutex                   // protects govs, stop and paced
	govs map[*memoryGovernor]struct{} // databases with a budget
	stop chan struct{}                // closes the goroutine; nil when none runs
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
		used := g.budget.Used()
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
			g.judge(live, cycle)
		}
		w.mu.Unlock()
		w.pace()
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
