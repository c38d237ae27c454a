package vectorindex

import (
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
)

// A VECTOR index's graph counts against the server's memory budget
// (Kind.Budget) as one more holder, like a running statement: charged as
// it grows (Populate, Apply), given back as it shrinks and at drop or
// close. A build or an apply that would take the budget past its limit
// fails the index (FAILED, with the budget's 53200 error) rather than
// the server; so does the budget failing the index as its largest
// holder. A failed index answers searches exactly (procs_index.go).

// vectorBytes estimates what one indexed vector holds: its FLOAT32
// elements, the graph node and its neighbour lists (m per layer, 2m on
// the ground layer, as map entries in the library), the id maps.
func vectorBytes(cfg Config) int64 {
	return int64(cfg.Dim)*4 + int64(cfg.M)*2*56 + 160
}

// memAccount is an index's account with the budget.
type memAccount struct {
	t       *memory.Tracker // nil: no budget
	per     int64
	charged atomic.Int64
	// killed is the budget's error once it failed the index.
	killed atomic.Pointer[errs.Error]
}

func newMemAccount(b *memory.Budget, cfg Config) *memAccount {
	a := &memAccount{per: vectorBytes(cfg)}
	if b != nil {
		a.t = &memory.Tracker{Budget: b}
		a.t.Kill = func(err error) {
			e, _ := errs.As(err)
			if e == nil {
				e = errs.New(errs.CodeOutOfMemory, errs.CatResource, "%v", err)
			}
			if a.killed.CompareAndSwap(nil, e) {
				// Given back at once, not at the index's next commit:
				// the budget fails no other holder while a failed one
				// still holds memory.
				a.t.Release(a.charged.Swap(0))
			}
		}
	}
	return a
}

// settle charges or gives back the difference between n vectors and
// what is charged; an error when the budget cannot hold them.
func (a *memAccount) settle(n int) error {
	if e := a.killed.Load(); e != nil {
		return e
	}
	if a.t == nil {
		return nil
	}
	want := int64(n) * a.per
	d := want - a.charged.Load()
	switch {
	case d > 0:
		if err := a.t.Reserve(d); err != nil {
			return err
		}
		a.charged.Add(d)
		if err := a.t.Charge(d); err != nil {
			return err
		}
	case d < 0:
		a.charged.Add(d)
		a.t.Release(-d)
	}
	return nil
}

// failed reports whether the budget failed the index.
func (a *memAccount) failed() bool { return a.killed.Load() != nil }

// close gives everything back.
func (a *memAccount) close() {
	if a.t != nil {
		a.t.Close()
	}
}
