package exec

import (
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// countingOp yields bs in turn and counts its calls.
type countingOp struct {
	bs    []*vector.Batch
	calls int
}

func (o *countingOp) Next() (*vector.Batch, error) {
	o.calls++
	if len(o.bs) == 0 {
		return nil, nil
	}
	b := o.bs[0]
	o.bs = o.bs[1:]
	return b, nil
}

// nodeBatch is a batch of a node column and a second column of v; a
// negative id is null. sel, when set, is the selection.
func nodeBatch(ids []int64, v []int64, sel []int32) *vector.Batch {
	nodes, vals := vector.New(vector.Node, len(ids)), vector.New(vector.Int64, len(ids))
	for i, id := range ids {
		if id < 0 {
			nodes.SetNull(i)
		} else {
			nodes.IDs[i] = uint64(id)
		}
		vals.I64[i] = v[i]
	}
	return &vector.Batch{Cols: []*vector.Vector{nodes, vals}, Len: len(ids), Sel: sel}
}

// TestCursorRowsAndGather walks the logical rows of two batches (one with
// a selection), emits two output rows per input row with a column of its
// own, and checks the gathered input half, that no batch is pulled while
// output rows refer to the current one, and onBatch's calls.
func TestCursorRowsAndGather(t *testing.T) {
	in := &countingOp{bs: []*vector.Batch{
		nodeBatch([]int64{1, 2, 3}, []int64{10, 20, 30}, []int32{0, 2}),
		nodeBatch([]int64{4}, []int64{40}, nil),
	}}
	c := newCursor(nil, in, 2, 3)
	var batches int
	c.onBatch = func(*vector.Batch) error { batches++; return nil }
	own := vector.New(vector.Int64, vector.Capacity)
	c.out.Cols[2] = own
	var got [][3]int64
	for {
		for !c.full() {
			ok, err := c.nextRow()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			for j := range int64(2) {
				own.I64[len(c.idx)] = j
				c.emitRow()
			}
		}
		pulled := in.calls
		out := c.batch()
		if out == nil {
			break
		}
		if pulled != batches {
			t.Fatalf("pulled %d batches before emitting, onBatch saw %d", pulled, batches)
		}
		for r := range out.Rows() {
			got = append(got, [3]int64{int64(out.Cols[0].IDs[r]), out.Cols[1].I64[r], out.Cols[2].I64[r]})
		}
	}
	want := [][3]int64{{1, 10, 0}, {1, 10, 1}, {3, 30, 0}, {3, 30, 1}, {4, 40, 0}, {4, 40, 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: got %v, want %v", i, got[i], want[i])
		}
	}
	if batches != 2 {
		t.Fatalf("onBatch called %d times, want 2", batches)
	}
}

// TestCursorNextNodes skips rows whose either endpoint is null, returns
// both endpoints, reads only from when to is negative, and fails on a
// value that is not a node.
func TestCursorNextNodes(t *testing.T) {
	b := nodeBatch([]int64{1, -1, 3, 4}, []int64{0, 0, 0, 0}, nil)
	to := vector.New(vector.Node, 4)
	to.IDs = []uint64{11, 12, 0, 14}
	to.SetNull(2)
	b.Cols[1] = to
	c := newCursor(nil, &countingOp{bs: []*vector.Batch{b}}, 2, 2)
	var pairs [][2]uint64
	for {
		src, dst, ok, err := c.nextNodes(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		pairs = append(pairs, [2]uint64{src, dst})
	}
	if len(pairs) != 2 || pairs[0] != [2]uint64{1, 11} || pairs[1] != [2]uint64{4, 14} {
		t.Fatalf("pairs %v, want [[1 11] [4 14]]", pairs)
	}

	c = newCursor(nil, &countingOp{bs: []*vector.Batch{nodeBatch([]int64{-1, 7}, []int64{0, 0}, nil)}}, 2, 2)
	if src, _, ok, err := c.nextNodes(0, -1); err != nil || !ok || src != 7 {
		t.Fatalf("nextNodes without to: %d %v %v, want 7", src, ok, err)
	}

	c = newCursor(nil, &countingOp{bs: []*vector.Batch{nodeBatch([]int64{1}, []int64{5}, nil)}}, 2, 2)
	_, _, _, err := c.nextNodes(1, -1)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeData {
		t.Fatalf("an integer endpoint: %v, want a data error", err)
	}
}
