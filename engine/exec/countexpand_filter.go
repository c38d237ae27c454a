package exec

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// A CountExpand that took filters of its chain (rule count-filter,
// opt/count_filter.go) evaluates each once per candidate node, in
// batches through the usual filter kernels: the start filter over the
// scanned nodes, a far end's over the nodes of its labels. The nodes
// passing become the start set, or the far end's set each neighbour is
// tested in, exactly as a label set is. The planner admits only
// predicates that cannot fail, so evaluating one over a node no row
// reaches changes nothing.

// filteredNodes is the set of cands' nodes that pred (reading the node
// as column 0) holds for.
func filteredNodes(c *Context, cands *roaring.Bitmap, pred plan.Expr) (*roaring.Bitmap, error) {
	out := roaring.New()
	ids := make([]uint32, 0, vector.Capacity)
	failed, err := forPassingNodes(c, cands, pred, func(id uint64) {
		if len(ids) == cap(ids) {
			out.AddMany(ids)
			ids = ids[:0]
		}
		ids = append(ids, uint32(id))
	})
	if err == nil {
		err = failed // never for the predicates the planner admits
	}
	if err != nil {
		return nil, err
	}
	out.AddMany(ids)
	c.Counters.DBHits += int64(cands.GetCardinality())
	return out, nil
}

// forPassingNodes calls keep, in id order, for each node of cands that
// pred (reading the node as column 0) holds for. failed is the error
// evaluating pred raised on some node, err a cancellation.
func forPassingNodes(c *Context, cands *roaring.Bitmap, pred plan.Expr, keep func(id uint64)) (failed, err error) {
	src := &argumentOp{done: true}
	filter, err := buildOver(c, &plan.Filter{Pred: pred}, src)
	if err != nil {
		return err, nil
	}
	ids := vector.New(vector.Node, vector.Capacity)
	batch := &vector.Batch{Cols: []*vector.Vector{ids}}
	buf := make([]uint32, vector.Capacity)
	it := cands.ManyIterator()
	for {
		if err := c.CheckCancel(); err != nil {
			return nil, err
		}
		n := it.NextMany(buf)
		if n == 0 {
			return nil, nil
		}
		for i, id := range buf[:n] {
			ids.IDs[i] = uint64(id)
		}
		batch.Len, batch.Sel = n, nil
		src.b, src.done = batch, false
		out, err := filter.Next()
		if err != nil {
			return err, nil
		}
		if out == nil {
			continue
		}
		sel, m := rows(out)
		col := out.Cols[0].IDs
		if sel == nil {
			for _, id := range col[:m] {
				keep(id)
			}
			continue
		}
		for _, r := range sel {
			keep(col[r])
		}
	}
}
