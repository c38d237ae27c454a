package memory

import (
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/errs"
)

// Tracker is one statement's memory accountant (max_memory_per_query).
// It is charged for everything the statement holds in proportion to its
// data or its text:
//
//   - the state of operators that accumulate rows (hash aggregation,
//     DISTINCT, sort, joins, cross products, write buffers, collect()),
//     once per batch, for as long as they hold it;
//   - the batches every operator fills (columns × batch size), from Build
//     on;
//   - values expressions build (strings, lists, maps, paths), for as long
//     as their batch lives (chargedEval): an evaluator's output is
//     overwritten by its next batch, so it gives back the previous one's;
//     kernels that can grow a value past any bound (string and list
//     concatenation, range(), replace()) check the size first (Reserve),
//     so a query fails before allocating what it cannot hold.
//
// The figure is an estimate of live bytes, not an allocator count: fixed
// widths per typed value, string bytes plus headers, interface and slice
// headers for generic values (ValueBytes). Past Limit the statement fails
// with 53200.
//
// A tracker may also count against a server-wide Budget shared by all
// statements; when the budget runs out, the statement holding the most is
// the one that fails (budget.go).
//
// The workers of a parallel pipeline charge the query's tracker at once,
// so the totals are atomic; a worker's Context holds a tracker that
// forwards to the query's (shared).
type Tracker struct {
	// Limit is the ceiling in bytes; zero or less means none.
	Limit int64
	// Budget, when set, is the server-wide budget every charge also
	// counts against.
	Budget *Budget
	// Kill, when set, stops the statement with err (the engine cancels
	// its context with err as the cause); the budget calls it on the
	// statement it fails.
	Kill func(err error)

	used   atomic.Int64
	peak   atomic.Int64
	shared *Tracker
	// killed is the error the budget failed the statement with.
	killed atomic.Pointer[errs.Error]
	// joined is set once the tracker is registered with its budget,
	// closed once it left.
	joined, closed atomic.Bool
}

// Used is the bytes charged now.
func (m *Tracker) Used() int64 { return m.root().used.Load() }

// Peak is the most bytes charged at once.
func (m *Tracker) Peak() int64 { return m.root().peak.Load() }

// MapEntryBytes is the overhead of one Go map entry with a string key
// (bucket slot, tophash, string header), measured roughly on amd64.
const MapEntryBytes = 48

// Active reports whether charges can fail: without a limit or a budget,
// callers skip the estimates and their loops.
func (m *Tracker) Active() bool {
	r := m.root()
	return r.Limit > 0 || r.Budget != nil
}

// Charge adds n bytes the statement now holds, and fails once the total
// passes the limit, or the budget chose this statement to fail.
func (m *Tracker) Charge(n int64) error {
	m = m.root()
	used := m.used.Add(n)
	for p := m.peak.Load(); used > p && !m.peak.CompareAndSwap(p, used); p = m.peak.Load() {
	}
	if m.Budget != nil {
		if !m.joined.Swap(true) {
			m.Budget.join(m)
		}
		m.Budget.charge(n)
	}
	if e := m.killed.Load(); e != nil {
		return e
	}
	if m.Limit > 0 && used > m.Limit {
		return m.overLimit()
	}
	return nil
}

// Reserve fails when n more bytes would take the statement past its
// limit, without charging them: a kernel about to build a value of n
// bytes calls it first, so that it never allocates what the statement
// cannot hold (the value is charged once built, by its evaluator). Past
// the budget it fails as the charge would: only when the statement would
// then hold the most (Budget.refuses).
func (m *Tracker) Reserve(n int64) error {
	m = m.root()
	if e := m.killed.Load(); e != nil {
		return e
	}
	if m.Limit > 0 && m.used.Load()+n > m.Limit {
		return m.overLimit()
	}
	if b := m.Budget.refuses(m, n); b != nil {
		return budgetExceeded(b)
	}
	return nil
}

func (m *Tracker) overLimit() error {
	return errs.New(errs.CodeOutOfMemory, errs.CatResource,
		"query stopped: it needs more than max_memory_per_query (%d bytes)", m.Limit).
		Suggest("add LIMIT or a narrower WHERE, or lower what each row builds; the operator may raise max_memory_per_query")
}

// Release gives back n bytes charged before: to the budget first, so
// that a budget choosing whom to fail never sees a statement holding
// less than the budget still counts for it (Budget.failLargest).
func (m *Tracker) Release(n int64) {
	m = m.root()
	m.Budget.release(n)
	m.used.Add(-n)
}

// Close gives back everything the statement still holds to its budget
// and leaves it. The tracker is not used afterwards.
func (m *Tracker) Close() {
	if m.shared != nil || m.Budget == nil || m.closed.Swap(true) {
		return
	}
	m.Budget.leave(m)
}

// root is the tracker charges end up in.
func (m *Tracker) root() *Tracker {
	for m.shared != nil {
		m = m.shared
	}
	return m
}

// Forward makes m charge parent's statement: a parallel worker's tracker,
// which counts into the query's totals, under the query's limit.
func (m *Tracker) Forward(parent *Tracker) {
	m.Limit = parent.Limit
	m.shared = parent.root()
}
