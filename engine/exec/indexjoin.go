package exec

import (
	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// indexJoin seeks the index once per left row with the row's key values
// and pairs the row with each node found (plan.IndexJoin). A row whose
// key has a null, or a value the index cannot compare as Cypher does,
// falls back to the nodes with the labels; the Filter above decides.
type indexJoin struct {
	c    *Context
	p    *plan.IndexJoin
	left Operator
	keys []expr.Evaluator
	nl   int

	labels *roaring.Bitmap // nodes with every label of the pattern
	lb     *vector.Batch
	kvecs  []*vector.Vector // the keys evaluated over lb
	lpos   int              // logical left row being paired
	ids    []uint64         // its nodes
	ipos   int
	lidx   []int32
	out    *vector.Batch
	kbuf   []byte
}

func newIndexJoin(c *Context, p *plan.IndexJoin, left Operator) (*indexJoin, error) {
	j := &indexJoin{c: c, p: p, left: left, nl: len(p.Left.Columns())}
	for _, k := range p.Keys {
		e, err := compile(c, k)
		if err != nil {
			return nil, err
		}
		j.keys = append(j.keys, e)
	}
	if c.Profile != nil {
		c.Profile.entry(p).Index = p.Index
	}
	return j, nil
}

// nodesFor returns the nodes for left row r given the evaluated keys.
func (j *indexJoin) nodesFor(keys []*vector.Vector, r int) []uint64 {
	tx := j.c.Tx
	ix := planned(tx.Schema(), j.p.Index, j.p.Labels, j.p.Props)
	j.kbuf = j.kbuf[:0]
	exact := ix != nil
	for _, k := range keys {
		v := k.Get(r)
		if v == nil {
			return nil // null equals nothing
		}
		if !seekable(v) {
			exact = false
			break
		}
		j.kbuf, _ = storage.AppendIndexKey(j.kbuf, v)
	}
	var bm *roaring.Bitmap
	if exact {
		bm = tx.IndexEqual(ix, string(j.kbuf))
		j.c.Counters.DBHits += int64(bm.GetCardinality())
		j.c.Counters.IndexHits += int64(bm.GetCardinality())
		bm.And(j.labelNodes())
	} else {
		bm = j.labelNodes()
	}
	ids := make([]uint64, 0, bm.GetCardinality())
	it := bm.Iterator()
	for it.HasNext() {
		ids = append(ids, uint64(it.Next()))
	}
	return ids
}

// labelNodes is the set of nodes with every label of the pattern, read
// once.
func (j *indexJoin) labelNodes() *roaring.Bitmap {
	if j.labels == nil {
		s := &indexSeek{c: j.c, p: &plan.IndexSeek{Labels: j.p.Labels}}
		j.labels = s.labelNodes(nil)
	}
	return j.labels
}

func (j *indexJoin) Next() (*vector.Batch, error) {
	j.lidx = j.lidx[:0]
	if j.out == nil {
		j.out = &vector.Batch{Cols: make([]*vector.Vector, j.nl+1)}
		j.out.Cols[j.nl] = vector.New(vector.Node, vector.Capacity)
	}
	nodes := j.out.Cols[j.nl].IDs
	for len(j.lidx) < vector.Capacity {
		if j.lb == nil || j.lpos >= j.lb.Rows() {
			if len(j.lidx) > 0 {
				break // the pairs refer to the current left batch
			}
			if err := j.c.CheckCancel(); err != nil {
				return nil, err
			}
			b, err := j.left.Next()
			if err != nil || b == nil {
				return nil, err
			}
			j.lb, j.lpos, j.ids, j.ipos = b, 0, nil, 0
			j.kvecs = j.kvecs[:0]
			for _, k := range j.keys {
				v, err := k.Eval(b)
				if err != nil {
					return nil, err
				}
				j.kvecs = append(j.kvecs, v)
			}
			if err := j.seekRow(); err != nil {
				return nil, err
			}
			continue
		}
		n := min(len(j.ids)-j.ipos, vector.Capacity-len(j.lidx))
		lrow := int32(j.lb.Row(j.lpos))
		for _, id := range j.ids[j.ipos : j.ipos+n] {
			nodes[len(j.lidx)] = id
			j.lidx = append(j.lidx, lrow)
		}
		j.ipos += n
		if j.ipos >= len(j.ids) {
			j.lpos++
			if err := j.seekRow(); err != nil {
				return nil, err
			}
		}
	}
	for i, v := range j.lb.Cols[:j.nl] {
		j.out.Cols[i] = vector.Reuse(j.out.Cols[i], v.Type)
		vector.CopyRows(j.out.Cols[i], 0, v, j.lidx)
	}
	j.out.Len, j.out.Sel = len(j.lidx), nil
	j.c.Counters.RowsScanned += int64(len(j.lidx))
	return j.out, nil
}

// seekRow finds the nodes of left row lpos (when there is one).
func (j *indexJoin) seekRow() error {
	j.ids, j.ipos = nil, 0
	if j.lpos >= j.lb.Rows() {
		return nil
	}
	j.ids = j.nodesFor(j.kvecs, j.lb.Row(j.lpos))
	return nil
}
