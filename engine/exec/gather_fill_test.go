package exec

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// scannedOp yields its batches, counting scanned[i] rows scanned before
// batch i, as a worker's scan would.
type scannedOp struct {
	c       *Context
	bs      []*vector.Batch
	scanned []int64
	pos     int
}

func (o *scannedOp) Next() (*vector.Batch, error) {
	if o.pos == len(o.bs) {
		return nil, nil
	}
	o.c.Counters.RowsScanned += o.scanned[o.pos]
	o.pos++
	return o.bs[o.pos-1], nil
}

// A gather's worker hands a dense batch over as it is, and copies the
// rows of sparse ones into one batch, in order, handed over when a batch
// of other types or a dense one comes, when it is nearly full, when the
// scan has read fillScanned rows since its first row, and at the end.
func TestGatherWorkerFillsSparseBatches(t *testing.T) {
	ints := intBatch
	c := &Context{Env: expr.Env{Ctx: context.Background()}, worker: &workerState{}}
	op := &scannedOp{c: c}
	var want []string
	var asIs []int // the batches' sizes, handed over as they are when none is sparse (batch size 2)
	add := func(b *vector.Batch, scanned int64) {
		op.bs, op.scanned = append(op.bs, b), append(op.scanned, scanned)
		if b.Rows() > 0 {
			asIs = append(asIs, b.Rows())
		}
		sel, n := rows(b)
		vector.ForRows(sel, n, func(r int) { want = append(want, fmt.Sprint(b.Cols[0].Get(r))) })
	}
	sel := ints(1, -1, 2, -1)
	sel.Sel = []int32{0, 2}
	add(sel, 1)
	add(ints(3), 1)
	strs := vector.New(vector.String, 1)
	strs.Str[0] = "a"
	add(&vector.Batch{Cols: []*vector.Vector{strs}, Len: 1}, 1) // another type
	dense := ints(make([]int64, sparseRows)...)
	add(dense, 1)
	for i := range vector.Capacity - sparseRows + 1 { // until nearly full
		add(ints(int64(100+i)), 1)
	}
	for i := range 5 { // the fifth comes fillScanned rows after the first
		add(ints(int64(-100-i)), fillScanned/4)
	}
	add(ints(7), 1) // held until the end

	var got []string
	var sizes []int
	var handed []*vector.Batch
	err := pumpFilled(c, op, func(b *vector.Batch) bool {
		sel, n := rows(b)
		vector.ForRows(sel, n, func(r int) { got = append(got, fmt.Sprint(b.Cols[0].Get(r))) })
		sizes, handed = append(sizes, b.Rows()), append(handed, b)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v\nwant %v", got, want)
	}
	wantSizes := []int{3, 1, sparseRows, vector.Capacity - sparseRows + 1, 5, 1}
	if sparseRows <= 1 {
		wantSizes = asIs
	}
	if !slices.Equal(sizes, wantSizes) {
		t.Errorf("batches of %v rows, want %v", sizes, wantSizes)
	}
	if sparseRows > 1 && handed[2] != dense {
		t.Error("the dense batch was copied, not handed over as it is")
	}
	if c.worker.fill != nil {
		t.Error("the fill is left on the worker")
	}

	// The consumer gone: the worker stops at once.
	op.pos, op.c.Counters.RowsScanned = 0, 0
	calls := 0
	if err := pumpFilled(c, op, func(*vector.Batch) bool { calls++; return false }); err != nil {
		t.Fatal(err)
	}
	wantPulls := 3 // the first sparse batches, until the STRING one
	if sparseRows <= 1 {
		wantPulls = 1
	}
	if calls != 1 || op.pos != wantPulls {
		t.Errorf("after the consumer left: %d hand-overs, %d batches pulled; want 1 and %d", calls, op.pos, wantPulls)
	}
}

// A worker whose filter keeps one row early and none after hands that
// row over once its scan has read fillScanned rows more, not at the end
// of its share of the scan: a LIMIT 1 above gets it without waiting for
// the rest.
func TestGatherWorkerHandsOverHeldRowsWhileScanning(t *testing.T) {
	n := 16 * morselWeight
	st := storage.New()
	cat := st.Catalog()
	p, k := cat.EnsureLabel("P"), cat.EnsureKey("k")
	tx := st.Begin()
	for i := range n {
		v := int64(0)
		if i == 5 {
			v = 1
		}
		if _, err := tx.CreateNode([]catalog.LabelID{p}, []catalog.KeyID{k}, []vector.Value{v}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	defer func(was int64) { fillScanned = was }(fillScanned)
	fillScanned = morselWeight

	read := st.Begin()
	defer read.Rollback()
	c := &Context{Env: expr.Env{Ctx: context.Background(), Tx: read, Catalog: cat}, Parallelism: 2}
	defer c.Close()
	root := chosen(&plan.Filter{Input: scanP(), Pred: cmpOp(plan.OpEq, prop(0, "k"), konst(int64(1)))})
	op, err := Build(c, root)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := op.(*gatherOp)
	if !ok {
		t.Fatalf("the filtered scan is not gathered from workers: %T", op)
	}
	b, err := g.Next()
	if err != nil {
		t.Fatal(err)
	}
	if b == nil || b.Rows() != 1 || b.Cols[0].IDs[b.Row(0)] != 5 {
		t.Fatalf("first batch %v, want node 5", b)
	}
	// The worker that handed it over waits for the consumer: its count
	// of rows scanned is still.
	scanned := g.run.wctx[g.held].Counters.RowsScanned
	if limit := fillScanned + 2*int64(vector.Capacity); scanned > limit {
		t.Errorf("node 5 came after its worker scanned %d of %d ids, want at most %d", scanned, n, limit)
	}
}
