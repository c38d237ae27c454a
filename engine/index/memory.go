package index

import (
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/errs"
)

// Budget is the server-wide memory budget (--max-memory) an index holds
// its structures against: memory.Budget's Hold and Unhold, which never
// fail a statement to make room (the consumer owns the interface).
type Budget interface {
	Hold(n int64) bool
	Unhold(n int64)
	Limit() int64
}

// Memory is what one index holds against the server's budget: the Kind
// estimates its structures as it populates and applies commits, charges
// them here, and releases what it deletes. A charge that does not fit
// fails, and the index with it (FAILED, with the error in db.indexes()
// and in every search), rather than the process running out of memory.
// The Manager releases what the index still holds once it is closed,
// dropped or failed. A nil Memory or one without a budget holds
// anything.
type Memory struct {
	budget Budget
	name   string
	held   atomic.Int64
}

// Charged is implemented by an index that charges its memory: the
// Manager hands it its Memory before Populate.
type Charged interface {
	SetMemory(m *Memory)
}

// Charge holds n more bytes, or fails with 53200 when the budget lacks
// them (charging nothing).
func (m *Memory) Charge(n int64) error {
	if m == nil {
		return nil
	}
	if m.budget != nil && !m.budget.Hold(n) {
		return errs.New(errs.CodeOutOfMemory, errs.CatResource,
			"index %s needs more memory than the server's budget has left (--max-memory, %d bytes): it holds %d bytes and needed %d more",
			m.name, m.budget.Limit(), m.held.Load(), n).
			Suggest("DROP INDEX " + m.name + " frees it; raise --max-memory, or index fewer or shorter properties")
	}
	m.held.Add(n)
	return nil
}

// Release gives back n bytes charged before.
func (m *Memory) Release(n int64) {
	if m == nil {
		return
	}
	m.held.Add(-n)
	if m.budget != nil {
		m.budget.Unhold(n)
	}
}

// Held is what the index holds now.
func (m *Memory) Held() int64 {
	if m == nil {
		return 0
	}
	return m.held.Load()
}

// releaseAll gives back everything once the index is closed.
func (m *Memory) releaseAll() {
	if m != nil {
		m.Release(m.held.Load())
	}
}
