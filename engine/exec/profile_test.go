package exec

import (
	"testing"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// hitter yields batches of rows, adding hits DB hits per batch, after
// pulling its input (if any) once per batch.
type hitter struct {
	c       *Context
	in      Operator
	batches int
	rows    int
	hits    int64
}

func (h *hitter) Next() (*vector.Batch, error) {
	if h.in != nil {
		if _, err := h.in.Next(); err != nil {
			return nil, err
		}
	}
	if h.batches == 0 {
		return nil, nil
	}
	h.batches--
	h.c.Counters.DBHits += h.hits
	return &vector.Batch{Len: h.rows}, nil
}

// Each operator reports the rows it produced and its own hits: the
// parent's inclusive hits minus the child's.
func TestProfileExclusiveCounts(t *testing.T) {
	c := &Context{Profile: NewProfile()}
	leafPlan := &plan.Unit{}
	rootPlan := &plan.Distinct{Input: leafPlan}
	leaf := c.profile(leafPlan, &hitter{c: c, batches: 3, rows: 4, hits: 10})
	root := c.profile(rootPlan, &hitter{c: c, in: leaf, batches: 2, rows: 1, hits: 1})
	for {
		b, err := root.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			break
		}
	}
	ops := c.Profile.Operators(rootPlan)
	if len(ops) != 2 {
		t.Fatalf("operators = %+v", ops)
	}
	// The root ran 3 times (2 batches and the end), pulling the leaf 3
	// times: the leaf made 3 batches of 4 rows and 30 hits, the root 2
	// rows and 2 hits of its own.
	if r := ops[0]; r.Name != "Distinct" || r.Rows != 2 || r.DBHits != 2 {
		t.Errorf("root = %+v", r)
	}
	if l := ops[1]; l.Name != "Unit" || l.Rows != 12 || l.DBHits != 30 {
		t.Errorf("leaf = %+v", l)
	}
}
