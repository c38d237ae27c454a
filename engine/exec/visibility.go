package exec

import (
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// visibleOnce is procs.Context.Visible for a statement restricted by sec:
// the sets are computed on the first call and shared by the calls after
// (every call of the statement reads the same snapshot).
func visibleOnce(c *Context, sec *plan.Security) func() (*procs.Visibility, error) {
	var v *procs.Visibility
	var err error
	done := false
	return func() (*procs.Visibility, error) {
		if !done {
			v, err = visibility(c, sec)
			done = true
		}
		return v, err
	}
}

// visibility evaluates the policies' tests of sec over every live node
// and every live relationship of a type with policies, at the statement's
// snapshot, in batches of the vector size, the way a scan's Filter does.
// The sets are charged to the statement's accountant, and stay charged
// while the statement runs.
func visibility(c *Context, sec *plan.Security) (*procs.Visibility, error) {
	v := &procs.Visibility{}
	s := &visScan{c: c}
	defer func() { c.Mem.Release(s.charged) }()
	if t := sec.NodeTest(); t != nil {
		nodes := roaring.New()
		err := s.run(t, vector.Node, func(emit func(uint64) error) error {
			it := c.Tx.LiveNodes().Iterator()
			for it.HasNext() {
				if err := emit(uint64(it.Next())); err != nil {
					return err
				}
			}
			return nil
		}, func(id uint64, visible bool) {
			if visible {
				nodes.Add(uint32(id))
			}
		}, func() int64 { return int64(nodes.GetSizeInBytes()) })
		if err != nil {
			return nil, err
		}
		v.Nodes = nodes
	}
	if t := sec.RelTest(); t != nil {
		hidden := roaring64.New()
		err := s.run(t, vector.Rel, func(emit func(uint64) error) error {
			return relsOfTypes(c, sec, emit)
		}, func(id uint64, visible bool) {
			if !visible {
				hidden.Add(id)
			}
		}, func() int64 { return int64(hidden.GetSizeInBytes()) })
		if err != nil {
			return nil, err
		}
		v.HiddenRels = hidden
	}
	// The sets are the procedure's from here: charged for good.
	if err := c.Mem.Charge(v.Bytes()); err != nil {
		return nil, err
	}
	return v, nil
}

// relsOfTypes emits the live relationships of the types sec has policies
// for (the others are visible whatever their endpoints), from their
// outgoing adjacencies.
func relsOfTypes(c *Context, sec *plan.Security, emit func(uint64) error) error {
	names := make([]string, 0, len(sec.Rels))
	for n := range sec.Rels {
		names = append(names, n)
	}
	sort.Strings(names)
	var nbrs, rels []uint64
	for _, n := range names {
		t, ok := c.Catalog.LookupType(n)
		if !ok {
			continue
		}
		a := c.Tx.Adjacency(t, storage.Outgoing)
		if a == nil || a.NumEdges() == 0 {
			continue
		}
		it := c.Tx.LiveNodes().Iterator()
		for it.HasNext() {
			node := uint64(it.Next())
			if a.Degree(node) == 0 {
				continue
			}
			nbrs, rels = a.AppendNeighbors(nbrs[:0], rels[:0], node)
			for _, r := range rels {
				if err := emit(r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// visScan evaluates a test over ids in batches.
type visScan struct {
	c       *Context
	charged int64 // the sets' bytes charged so far, while they grow
	buf     *vector.Vector
	sel     []int32
}

// checkEvery is how many batches go by between two checks of the
// cancellation and of the sets' growth.
const checkEvery = 16

// run evaluates test (over column 0 of type typ) for every id ids emits,
// tells each id's outcome to keep, and charges size's growth.
func (s *visScan) run(test plan.Expr, typ vector.Type, ids func(emit func(uint64) error) error,
	keep func(id uint64, visible bool), size func() int64) error {
	ev, err := compile(s.c, test)
	if err != nil {
		return err
	}
	b := &vector.Batch{Cols: []*vector.Vector{vector.New(typ, vector.Capacity)}}
	col := b.Cols[0]
	batches := 0
	flush := func() error {
		if b.Len == 0 {
			return nil
		}
		p, err := ev.Eval(b)
		if err != nil {
			return err
		}
		if p.Type != vector.Bool {
			if p, err = expr.AsBools(p, &s.buf, nil, b.Len, "a policy"); err != nil {
				return err
			}
		}
		s.sel = vector.SelectTrue(s.sel, b, p)
		next := 0
		for i, id := range col.IDs[:b.Len] {
			visible := next < len(s.sel) && int(s.sel[next]) == i
			if visible {
				next++
			}
			keep(id, visible)
		}
		b.Len, b.Sel = 0, nil
		if batches++; batches%checkEvery == 0 {
			if err := s.c.CheckCancel(); err != nil {
				return err
			}
			if grown := size() - s.charged; grown > 0 {
				if err := s.c.Mem.Charge(grown); err != nil {
					return err
				}
				s.charged += grown
			}
		}
		return nil
	}
	err = ids(func(id uint64) error {
		col.IDs[b.Len] = id
		if b.Len++; b.Len == vector.Capacity {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}
