package exec

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
)

// A sort stops at the statement's end instead of finishing, and reports
// the context's cause: a killed statement says 53200, not "cancelled".
func TestSortStopsWhenInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	c := &Context{Env: expr.Env{Ctx: ctx}}
	perm := make([]int32, 100000)
	for i := range perm {
		perm[i] = int32(len(perm) - i)
	}
	compares := 0
	less := func(a, b int) bool { compares++; return a < b }
	if err := sortRows(c, perm, less); err != nil {
		t.Fatalf("uninterrupted sort: %v", err)
	}
	for i := 1; i < len(perm); i++ {
		if perm[i-1] > perm[i] {
			t.Fatalf("not sorted at %d", i)
		}
	}
	full := compares
	for i := range perm {
		perm[i] = int32(len(perm) - i)
	}
	cancel(errs.New(errs.CodeOutOfMemory, errs.CatResource, "budget"))
	compares = 0
	err := sortRows(c, perm, less)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("interrupted sort: %v, want the cause (53200)", err)
	}
	if compares > sortCheckEvery || compares >= full {
		t.Errorf("the interrupted sort compared %d times (a full sort: %d)", compares, full)
	}
}

// interrupted maps the context's end like checkCancel: the deadline's
// cause, else a timeout or a cancellation.
func TestInterrupted(t *testing.T) {
	if err := (&Context{}).Interrupted(); err != nil {
		t.Errorf("no context: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Context{Env: expr.Env{Ctx: ctx}}
	if err := c.Interrupted(); err != nil {
		t.Errorf("running: %v", err)
	}
	cancel()
	if e, ok := errs.As(c.Interrupted()); !ok || e.Code != errs.CodeTransaction {
		t.Errorf("cancelled: %v", e)
	}
	dctx, stop := context.WithTimeout(context.Background(), 0)
	defer stop()
	<-dctx.Done()
	if e, ok := errs.As((&Context{Env: expr.Env{Ctx: dctx}}).Interrupted()); !ok || e.Code != errs.CodeTimeout {
		t.Errorf("past the deadline: %v", e)
	}
}
