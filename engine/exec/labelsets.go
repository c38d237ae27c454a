package exec

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// labelSets computes plan.LabelSets: it splits the scanned nodes by each
// label of the catalog in turn (the nodes of a set that carry the label,
// and those that do not), with bitmap operations on the label index of
// the query's snapshot, so its cost follows the labels and the sets, not
// the nodes. It yields one row per set: its smallest node and its size.
// Past maxLabelSets sets, or maxLabelSetOps bitmap operations, splitting
// no longer pays, and it yields every scanned node with a count of 1.
type labelSets struct {
	c      *Context
	p      *plan.LabelSets
	opened bool

	nodes  []uint64 // a node of each set
	counts []int64  // and the set's size
	pos    int

	it  roaring.ManyIntIterable // the nodes one by one, when there are too many sets
	buf []uint32
	out *vector.Batch
}

// Bounds on splitting by label (see labelSets).
const (
	maxLabelSets   = 4096
	maxLabelSetOps = 1 << 16
)

func newLabelSets(c *Context, p *plan.LabelSets) *labelSets {
	return &labelSets{c: c, p: p, out: vector.NewBatch(vector.Node, vector.Int64)}
}

// open splits the scanned nodes into their label sets.
func (o *labelSets) open() error {
	o.opened = true
	base := scanBitmap(o.c, &plan.NodeScan{Labels: o.p.Labels})
	if base.IsEmpty() {
		return nil
	}
	sets := []*roaring.Bitmap{base}
	ops := 0
	for _, l := range o.c.Catalog.Labels() {
		if err := o.c.CheckCancel(); err != nil {
			return err
		}
		lb := o.c.Tx.LabelNodes(l)
		if lb.IsEmpty() {
			continue
		}
		for i, n := 0, len(sets); i < n; i++ {
			ops++
			if !sets[i].Intersects(lb) {
				continue
			}
			with := roaring.And(sets[i], lb)
			if with.GetCardinality() == sets[i].GetCardinality() {
				continue // every node of the set carries l
			}
			without := roaring.AndNot(sets[i], lb)
			if err := o.c.Mem.Charge(int64(with.GetSizeInBytes() + without.GetSizeInBytes())); err != nil {
				return err
			}
			sets[i] = with
			sets = append(sets, without)
		}
		if len(sets) > maxLabelSets || ops > maxLabelSetOps {
			o.it = base.ManyIterator()
			o.buf = make([]uint32, vector.Capacity)
			o.c.Counters.RowsScanned += int64(base.GetCardinality())
			return nil
		}
	}
	if err := o.c.Mem.Charge(int64(len(sets)) * 16); err != nil {
		return err
	}
	for _, s := range sets {
		o.nodes = append(o.nodes, uint64(s.Minimum()))
		o.counts = append(o.counts, int64(s.GetCardinality()))
	}
	o.c.Counters.DBHits += int64(ops)
	return nil
}

func (o *labelSets) Next() (*vector.Batch, error) {
	if !o.opened {
		if err := o.open(); err != nil {
			return nil, err
		}
	}
	if err := o.c.CheckCancel(); err != nil {
		return nil, err
	}
	ids, counts := o.out.Cols[0].IDs, o.out.Cols[1].I64
	n := 0
	if o.it != nil {
		n = o.it.NextMany(o.buf)
		for i, id := range o.buf[:n] {
			ids[i], counts[i] = uint64(id), 1
		}
		o.c.Counters.DBHits += int64(n)
	} else {
		n = copy(ids, o.nodes[o.pos:])
		copy(counts, o.counts[o.pos:o.pos+n])
		o.pos += n
	}
	if n == 0 {
		return nil, nil
	}
	o.out.Len, o.out.Sel = n, nil
	return o.out, nil
}
