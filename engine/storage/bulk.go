package storage

import (
	"fmt"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// Bulk loading builds a store's first version directly from typed
// columns: no transaction, no per-value op. Node ids are dense in input
// order (the sets one after the other), relationship ids likewise, label
// bitmaps are ranges, chunks are filled from typed slices and sealed, and
// each type's adjacency is built by counting sort (csr.Build) in both
// directions. This is what `quiver import` uses.

// BulkColumn is one property of a bulk-loaded set: row r's value is
// element r of the slice of Type (Bool, Int64, Float64, String, or Any
// for temporal and other values), absent when Null[r] (Null nil: no row
// is null).
type BulkColumn struct {
	Key  string
	Type vector.Type
	Bool []bool
	I64  []int64
	F64  []float64
	Str  []string
	Any  []vector.Value
	Null []bool
}

// BulkNodes is a set of Count nodes carrying Labels.
type BulkNodes struct {
	Labels []string
	Count  int
	Cols   []BulkColumn
}

// BulkRels is a set of relationships of one type; Src and Dst are node ids
// of the bulk load (the first node set starts at 0).
type BulkRels struct {
	Type     string
	Src, Dst []uint64
	Cols     []BulkColumn
}

// BulkLoad returns a store holding exactly the given nodes and
// relationships (one commit, ts 1).
func BulkLoad(nodes []BulkNodes, rels []BulkRels) (*Store, error) {
	s := New()
	cat := s.cat
	v := &Snapshot{ts: 1, live: roaring.New()}
	var start uint64
	var jobs []colJob
	for i := range nodes {
		ns := &nodes[i]
		end := start + uint64(ns.Count)
		if end > maxNodeID+1 {
			return nil, fmt.Errorf("storage: bulk load of %d nodes exceeds the 2^32 node ids", end)
		}
		if ns.Count > 0 {
			v.live.AddRange(start, end)
		}
		for _, name := range ns.Labels {
			l := cat.EnsureLabel(name)
			for len(v.labels) <= int(l) {
				v.labels = append(v.labels, nil)
			}
			if v.labels[l] == nil {
				v.labels[l] = roaring.New()
			}
			if ns.Count > 0 {
				v.labels[l].AddRange(start, end)
			}
		}
		for c := range ns.Cols {
			if err := ns.Cols[c].check(ns.Count); err != nil {
				return nil, err
			}
			jobs = append(jobs, colJob{cols: &v.nodeCols, k: cat.EnsureKey(ns.Cols[c].Key), start: start, bc: &ns.Cols[c]})
		}
		start = end
	}
	v.nodeBound, v.nodeCount = start, int64(start)
	v.live.RunOptimize()
	for _, b := range v.labels {
		if b != nil {
			b.RunOptimize()
		}
	}
	// Relationships: per-type edge lists keyed by input row (the sets one
	// after the other), the forward CSRs, then the final ids.
	var relStart uint64
	edges := map[catalog.TypeID][]csr.Edge{}
	var relJobs []colJob
	for i := range rels {
		rs := &rels[i]
		if len(rs.Src) != len(rs.Dst) {
			return nil, fmt.Errorf("storage: bulk relationships of %s: %d sources, %d targets", rs.Type, len(rs.Src), len(rs.Dst))
		}
		t := cat.EnsureType(rs.Type)
		for len(v.typeRels) <= int(t) {
			v.typeRels = append(v.typeRels, 0)
		}
		for c := range rs.Cols {
			if err := rs.Cols[c].check(len(rs.Src)); err != nil {
				return nil, err
			}
			relJobs = append(relJobs, colJob{cols: &v.relCols, k: cat.EnsureKey(rs.Cols[c].Key), start: relStart, bc: &rs.Cols[c]})
		}
		es := edges[t]
		if es == nil {
			es = make([]csr.Edge, 0, len(rs.Src))
		}
		for r := range rs.Src {
			src, dst := rs.Src[r], rs.Dst[r]
			if src >= v.nodeBound || dst >= v.nodeBound {
				return nil, fmt.Errorf("storage: bulk relationship %d of %s: endpoint %d->%d is not a node", r, rs.Type, src, dst)
			}
			es = append(es, csr.Edge{Src: src, Dst: dst, Rel: relStart + uint64(r)})
		}
		edges[t] = es
		v.typeRels[t] += int64(len(rs.Src))
		relStart += uint64(len(rs.Src))
	}
	v.relBound, v.relCount = relStart, int64(relStart)
	v.adj = make([]adjPair, len(v.typeRels))
	newID, err := v.bulkAdjacency(edges)
	if err != nil {
		return nil, err
	}
	for i := range relJobs {
		relJobs[i].ids = newID[relJobs[i].start : relJobs[i].start+uint64(relJobs[i].bc.rows())]
	}
	jobs = append(jobs, relJobs...)
	v.nodeCols = make([]*column, cat.NumKeys())
	v.relCols = make([]*column, cat.NumKeys())
	// Columns: one goroutine per key and entity kind (a key's sets write
	// disjoint rows, but may share a chunk at a set boundary, so they are
	// filled by one goroutine in order).
	var wg sync.WaitGroup
	byCol := map[*column][]colJob{}
	for _, j := range jobs {
		slot := &(*j.cols)[j.k]
		if *slot == nil {
			*slot = &column{}
		}
		byCol[*slot] = append(byCol[*slot], j)
	}
	for c, js := range byCol {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bound := v.nodeBound
			if js[0].cols == &v.relCols {
				bound = v.relBound
			}
			for _, j := range js {
				c.fill(j.start, j.ids, j.bc)
			}
			c.finish(bound)
		}()
	}
	wg.Wait()
	for _, cols := range []*[]*column{&v.nodeCols, &v.relCols} {
		for k, c := range *cols {
			if c != nil && c.typ() == vector.Null { // a column of nulls only
				(*cols)[k] = nil
			}
		}
		for len(*cols) > 0 && (*cols)[len(*cols)-1] == nil {
			*cols = (*cols)[:len(*cols)-1]
		}
	}
	s.cur.Store(v)
	s.nextNode.Store(v.nodeBound)
	s.nextRel.Store(v.relBound)
	return s, nil
}

func (bc *BulkColumn) check(n int) error {
	var have int
	switch bc.Type {
	case vector.Bool:
		have = len(bc.Bool)
	case vector.Int64:
		have = len(bc.I64)
	case vector.Float64:
		have = len(bc.F64)
	case vector.String:
		have = len(bc.Str)
	case vector.Any:
		have = len(bc.Any)
		for _, x := range bc.Any {
			if _, err := storeValue(x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("storage: bulk column %s of type %s", bc.Key, bc.Type)
	}
	if have != n || (bc.Null != nil && len(bc.Null) != n) {
		return fmt.Errorf("storage: bulk column %s has %d values for %d rows", bc.Key, have, n)
	}
	return nil
}

func (bc *BulkColumn) rows() int {
	return max(len(bc.Bool), len(bc.I64), len(bc.F64), len(bc.Str), len(bc.Any))
}

// Value is row r's value, nil when the row is null.
func (bc *BulkColumn) Value(r int) vector.Value {
	if bc.Null != nil && bc.Null[r] {
		return nil
	}
	return bc.value(r)
}

// value is row r's value boxed (the slow path).
func (bc *BulkColumn) value(r int) vector.Value {
	switch bc.Type {
	case vector.Bool:
		return bc.Bool[r]
	case vector.Int64:
		return bc.I64[r]
	case vector.Float64:
		return bc.F64[r]
	case vector.String:
		return bc.Str[r]
	}
	return bc.Any[r]
}

// fill stores bc's rows into c at ids start.. (ids[r] when ids is not
// nil): typed stores into chunks of bc's type, the generic chunk.set
// otherwise.
func (c *column) fill(start uint64, ids []uint64, bc *BulkColumn) {
	n := bc.rows()
	for r := 0; r < n; r++ {
		if bc.Null != nil && bc.Null[r] {
			continue
		}
		if bc.Type == vector.Any && bc.Any[r] == nil {
			continue
		}
		id := start + uint64(r)
		if ids != nil {
			id = ids[r]
		}
		g, row := int(id>>groupShift), int(id&groupMask)
		for len(c.groups) <= g {
			c.groups = append(c.groups, nil)
		}
		ch := c.groups[g]
		if ch == nil {
			ch = newChunk(0, bc.Type)
			switch bc.Type { // full capacity: grow never copies
			case vector.Int64:
				ch.i64 = make([]int64, 0, GroupSize)
			case vector.Float64:
				ch.f64 = make([]float64, 0, GroupSize)
			case vector.String:
				ch.str = make([]string, 0, GroupSize)
			}
			c.groups[g] = ch
		}
		if ch.typ != bc.Type || bc.Type == vector.Any {
			ch.set(row, bc.value(r))
			continue
		}
		ch.grow(row)
		setBit(ch.valid, row)
		ch.counts[bc.Type]++
		switch bc.Type {
		case vector.Bool:
			if bc.Bool[r] {
				setBit(ch.bits, row)
			}
		case vector.Int64:
			ch.i64[row] = bc.I64[r]
		case vector.Float64:
			ch.f64[row] = bc.F64[r]
		case vector.String:
			ch.str[row] = bc.Str[r]
		}
	}
}

// finish seals the complete groups and sums the counts.
func (c *column) finish(bound uint64) {
	c.counts = [numTypes]int64{}
	for g, ch := range c.groups {
		if ch == nil {
			continue
		}
		if uint64(g+1)<<groupShift <= bound {
			ch = ch.seal()
			c.groups[g] = ch
		}
		for t, k := range ch.counts {
			c.counts[t] += int64(k)
		}
	}
}

// colJob is one bulk column to store: rows go to ids start.. or, for
// relationships, to ids[r].
type colJob struct {
	cols  *[]*column
	k     catalog.KeyID
	start uint64
	ids   []uint64
	bc    *BulkColumn
}

// bulkAdjacency builds both CSRs of every type and numbers the
// relationships: type by type, in forward slot order, so that the forward
// CSR's ids are sequential (stored as a base, csr.WithSequentialRels) and
// a node's outgoing relationships are one id range. edges carry input row
// numbers as Rel; the result maps input row → relationship id. It also
// fills the relationship table.
func (v *Snapshot) bulkAdjacency(edges map[catalog.TypeID][]csr.Edge) ([]uint64, error) {
	n := int(v.nodeBound)
	fwd := make([]*csr.CSR, len(v.typeRels))
	bwd := make([]*csr.CSR, len(v.typeRels))
	// Both directions of every type at once, with input rows as ids (the
	// counting sorts are memory-bound: a second core nearly halves them).
	var wg sync.WaitGroup
	for t, es := range edges {
		rev := make([]csr.Edge, len(es))
		for i, e := range es {
			rev[i] = csr.Edge{Src: e.Dst, Dst: e.Src, Rel: e.Rel}
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			fwd[t] = csr.Build(n, es)
		}()
		go func() {
			defer wg.Done()
			bwd[t] = csr.Build(n, rev)
		}()
	}
	wg.Wait()
	newID := make([]uint64, v.relBound)
	var base uint64
	for t, f := range fwd {
		if f == nil {
			continue
		}
		s := base
		for node := uint64(0); node < uint64(n); node++ {
			for _, old := range f.Rels(node) {
				newID[old] = s
				s++
			}
		}
		fwd[t] = f.WithSequentialRels(base)
		base = s
	}
	for t := range bwd {
		if bwd[t] == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			bwd[t] = bwd[t].WithMappedRels(newID)
		}()
	}
	// The table, in id order: forward slot order per type.
	groups := int((v.relBound + GroupSize - 1) >> groupShift)
	v.rels = make([]*relChunk, groups)
	for g := range v.rels {
		rows := min(GroupSize, int(v.relBound-uint64(g)<<groupShift))
		v.rels[g] = &relChunk{typ: make([]uint32, rows), src: make([]uint64, rows), dst: make([]uint64, rows)}
	}
	// Ids follow forward slot order, so the table fills sequentially from
	// the decoded forward lists.
	var nbrs []uint64
	for t, f := range fwd {
		if f == nil {
			continue
		}
		for node := uint64(0); node < uint64(n); node++ {
			ids := f.Rels(node)
			if len(ids) == 0 {
				continue
			}
			nbrs = f.AppendNeighbors(nbrs[:0], node)
			for i, id := range ids {
				c, r := v.rels[id>>groupShift], id&groupMask
				c.typ[r], c.src[r], c.dst[r] = uint32(t), node, nbrs[i]
			}
		}
	}
	wg.Wait()
	for t := range fwd {
		if fwd[t] != nil {
			v.adj[t] = adjPair{csr.NewAdjacency(fwd[t]), csr.NewAdjacency(bwd[t])}
		}
	}
	return newID, nil
}
