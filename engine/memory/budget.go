package memory

import (
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/errs"
)

// Budget is the server-wide memory budget (--max-memory): the sum of
// what every running statement's Tracker holds. When a charge takes
// the sum past the limit, the statement holding the most fails with
// 53200 — not the one that happened to charge last, and never the
// process. The engine's heap watchdog calls FailLargest too, when the
// live heap nears the limit whatever the estimates say.
type Budget struct {
	// limit is the budget in bytes; a graph's may change (SetLimit).
	limit atomic.Int64
	// parent, when set, is the server's budget this one (a graph's,
	// ChildBudget) is part of: every charge counts against both, and a
	// statement fails when either runs out. name says whose it is.
	parent *Budget
	name   string
	used   atomic.Int64
	// held is the part of used that the server holds outside statements
	// (Hold).
	held atomic.Int64
	// freed counts the failed statements that have given their memory
	// back (closed).
	freed atomic.Uint64
	mu    struct {
		sync.Mutex                       // protects active
		active     map[*Tracker]struct{} // statements holding memory
	}
}

// NewBudget returns a budget of limit bytes.
func NewBudget(limit int64) *Budget {
	b := &Budget{}
	b.limit.Store(limit)
	b.mu.active = map[*Tracker]struct{}{}
	return b
}

// ChildBudget returns a budget of limit bytes inside parent: a graph's
// memory budget, named in its errors ("graph sales"). What its
// statements charge counts against parent as well.
func ChildBudget(limit int64, parent *Budget, name string) *Budget {
	b := NewBudget(limit)
	b.parent, b.name = parent, name
	return b
}

// Limit is the budget in bytes.
func (b *Budget) Limit() int64 { return b.limit.Load() }

// SetLimit changes the budget to limit bytes: what statements hold stays
// held, and the next charge past the new limit fails the largest.
func (b *Budget) SetLimit(limit int64) { b.limit.Store(limit) }

// Used is what the running statements hold now.
func (b *Budget) Used() int64 { return b.used.Load() }

// Hold charges n bytes the server holds outside any statement — a
// secondary index's structures (engine/index) — when they fit, and
// reports whether they did. Unlike a statement's charge it never fails a
// statement to make room: an index build that does not fit fails itself.
// What is held together stays within HeldShare of the limit, so the
// indexes never leave the statements less than the rest: a build near
// its end cannot starve the queries running beside it. A nil budget
// holds anything.
func (b *Budget) Hold(n int64) bool {
	if b == nil {
		return true
	}
	for {
		u := b.used.Load()
		if n > 0 && (u+n > b.limit.Load() || b.held.Load()+n > b.limit.Load()/HeldShare) {
			return false
		}
		if b.used.CompareAndSwap(u, u+n) {
			if !b.parent.Hold(n) {
				b.used.Add(-n)
				return false
			}
			b.held.Add(n)
			return true
		}
	}
}

// HeldShare: what Hold holds together stays within limit/HeldShare.
const HeldShare = 2

// Unhold gives back n bytes held by Hold.
func (b *Budget) Unhold(n int64) {
	if b == nil {
		return
	}
	b.held.Add(-n)
	b.used.Add(-n)
	b.parent.Unhold(n)
}

// Held is what the server holds outside statements (Hold), part of Used.
func (b *Budget) Held() int64 {
	if b == nil {
		return 0
	}
	return b.held.Load()
}

// Running is the number of statements holding memory.
func (b *Budget) Running() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.mu.active)
}

// join registers a statement's tracker at its first charge (every charge
// of a tracker with a budget counts against it).
func (b *Budget) join(m *Tracker) {
	b.mu.Lock()
	b.mu.active[m] = struct{}{}
	b.mu.Unlock()
	if b.parent != nil {
		b.parent.join(m)
	}
}

// Freed counts the statements failed for memory that have since closed:
// the memory they held is garbage from then on.
func (b *Budget) Freed() uint64 { return b.freed.Load() }

// leave takes a finished statement's tracker out, with what it held.
func (b *Budget) leave(m *Tracker) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.mu.active, m)
	b.used.Add(-m.used.Load()) // under the lock: failLargest sees both or neither
	if m.killed.Load() != nil {
		b.freed.Add(1)
	}
	if b.parent != nil {
		b.parent.leave(m)
	}
}

// release gives back n bytes a statement charged.
func (b *Budget) release(n int64) {
	for ; b != nil; b = b.parent {
		b.used.Add(-n)
	}
}

// refuses returns the budget (b or one it is part of) that n more bytes
// of m's would take past its limit while m, holding them, would hold the
// most; nil when there is none. Where another statement holds more, and
// what it holds would make room, the charge that follows fails that one
// (charge), not m: a statement reserving before it builds a value fails
// as one that charged as it went. A statement failed earlier and still
// giving its memory back counts as making room, as for a charge.
func (b *Budget) refuses(m *Tracker, n int64) *Budget {
	for ; b != nil; b = b.parent {
		if over := b.used.Load() + n - b.limit.Load(); over > 0 && !b.largerThan(m, m.used.Load()+n, over) {
			return b
		}
	}
	return nil
}

// largerThan reports whether a statement other than m holds more than
// mine and at least over bytes, or one failed earlier still holds over
// bytes.
func (b *Budget) largerThan(m *Tracker, mine, over int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for o := range b.mu.active {
		if o == m {
			continue
		}
		used := o.used.Load()
		if used >= over && (used > mine || o.killed.Load() != nil) {
			return true
		}
	}
	return false
}

// charge counts n more bytes; past the limit the largest statement fails
// (its tracker's killed error tells the charger when that is itself).
func (b *Budget) charge(n int64) {
	if b.used.Add(n) > b.limit.Load() {
		b.failLargest(nil, true)
	}
	if b.parent != nil {
		b.parent.charge(n)
	}
}

// FailLargest fails the running statement that holds the most with err,
// and reports whether it failed one. While a statement failed earlier
// still holds memory (it is unwinding and will give it back when it
// closes), no other is failed: one overrun costs one statement.
func (b *Budget) FailLargest(err *errs.Error) bool { return b.failLargest(err, false) }

// failLargest is FailLargest; with overOnly it fails nobody unless the
// budget is still exceeded once it holds the lock (a statement may have
// finished between a charge and here). A nil err stands for the budget's
// own error, made only when one fails.
func (b *Budget) failLargest(err *errs.Error, overOnly bool) bool {
	b.mu.Lock()
	if overOnly && b.used.Load() <= b.limit.Load() {
		b.mu.Unlock()
		return false
	}
	var largest *Tracker
	for m := range b.mu.active {
		used := m.used.Load()
		if m.killed.Load() != nil {
			if used > 0 {
				b.mu.Unlock()
				return false
			}
			continue
		}
		if used > 0 && (largest == nil || used > largest.used.Load()) {
			largest = m
		}
	}
	// A statement failed earlier may have given its memory back during
	// the loop (it read as holding nothing): Release counts it out of
	// the budget before its tracker, so the budget shows it now.
	if overOnly && b.used.Load() <= b.limit.Load() {
		largest = nil
	}
	b.mu.Unlock()
	if largest == nil {
		return false
	}
	if err == nil {
		err = budgetExceeded(b)
	}
	if !largest.killed.CompareAndSwap(nil, err) {
		return false
	}
	if largest.Kill != nil {
		largest.Kill(err)
	}
	return true
}

func budgetExceeded(b *Budget) *errs.Error {
	if b.name != "" {
		return errs.New(errs.CodeOutOfMemory, errs.CatResource,
			"query stopped: the memory budget of %s (max_memory, %d bytes) is exhausted and this query held the most", b.name, b.limit.Load()).
			Suggest("retry later, add LIMIT or a narrower WHERE, or ask an administrator to raise the graph's max_memory")
	}
	return errs.New(errs.CodeOutOfMemory, errs.CatResource,
		"query stopped: the server's memory budget (--max-memory, %d bytes) is exhausted and this query held the most", b.limit.Load()).
		Suggest("retry later, add LIMIT or a narrower WHERE, or ask the operator to raise --max-memory")
}
