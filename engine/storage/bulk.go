package storage

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/progress"
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
// of the bulk load (the first node set starts at 0; ids fit 32 bits).
// BulkLoad takes the endpoint slices over: it drops them (sets them nil)
// once sorted, so that a large load does not hold both forms at once.
type BulkRels struct {
	Type     string
	Src, Dst []uint32
	Cols     []BulkColumn
}

// BulkLoad returns a store holding exactly the given nodes and
// relationships (one commit, ts 1).
func BulkLoad(nodes []BulkNodes, rels []BulkRels) (*Store, error) {
	return BulkLoadProgress(nodes, rels, nil)
}

// BulkLoadProgress is BulkLoad telling prog its phases (progress.go):
// PhaseStoreNodeProperties, then PhaseBuildAdjacency.
func BulkLoadProgress(nodes []BulkNodes, rels []BulkRels, prog *progress.Tracker) (*Store, error) {
	s := New()
	v := &Snapshot{ts: 1, live: roaring.New()}
	jobs, err := v.bulkNodes(s.cat, nodes)
	if err != nil {
		return nil, err
	}
	types, relJobs, err := v.bulkRels(s.cat, rels)
	if err != nil {
		return nil, err
	}
	v.nodeCols = make([]*column, s.cat.NumKeys())
	v.relCols = make([]*column, s.cat.NumKeys())
	// Node columns first, each input released once stored; the
	// relationship columns as their type is sorted.
	var values int64
	for _, j := range jobs {
		values += int64(j.bc.rows())
	}
	prog.Begin(progress.Phase{Name: PhaseStoreNodeProperties, Unit: "values", TotalItems: values})
	fillColumns(jobs, prog)
	prog.Begin(progress.Phase{Name: PhaseBuildAdjacency, Unit: "relationships", TotalItems: int64(v.relBound)})
	v.adj = make([]adjPair, len(v.typeRels))
	v.bulkAdjacency(types, relJobs, prog)
	v.finishBulkColumns()
	s.install(v)
	s.nextNode.Store(v.nodeBound)
	s.nextRel.Store(v.relBound)
	return s, nil
}

// bulkNodes gives the node sets their ids, one set after the other, and
// their labels, and returns the jobs that store their columns.
func (v *Snapshot) bulkNodes(cat *catalog.Catalog, nodes []BulkNodes) ([]colJob, error) {
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
	return jobs, nil
}

// bulkRels gathers the relationship sets by type (each type's sets one
// after the other, sorted into both CSRs later; relationship ids follow
// the forward slot order) and returns the types and the jobs that store
// their columns.
func (v *Snapshot) bulkRels(cat *catalog.Catalog, rels []BulkRels) ([]*bulkType, []colJob, error) {
	var types []*bulkType
	var relJobs []colJob
	for i := range rels {
		rs := &rels[i]
		if len(rs.Src) != len(rs.Dst) {
			return nil, nil, fmt.Errorf("storage: bulk relationships of %s: %d sources, %d targets", rs.Type, len(rs.Src), len(rs.Dst))
		}
		t := cat.EnsureType(rs.Type)
		for len(v.typeRels) <= int(t) {
			v.typeRels = append(v.typeRels, 0)
			types = append(types, nil)
		}
		bt := types[t]
		if bt == nil {
			bt = &bulkType{}
			types[t] = bt
		}
		if uint64(len(bt.src))+uint64(len(rs.Src)) > math.MaxUint32 {
			return nil, nil, fmt.Errorf("storage: bulk load of more than 2^32-1 relationships of type %s", rs.Type)
		}
		for r := range rs.Src {
			if uint64(rs.Src[r]) >= v.nodeBound || uint64(rs.Dst[r]) >= v.nodeBound {
				return nil, nil, fmt.Errorf("storage: bulk relationship %d of %s: endpoint %d->%d is not a node", r, rs.Type, rs.Src[r], rs.Dst[r])
			}
		}
		for c := range rs.Cols {
			if err := rs.Cols[c].check(len(rs.Src)); err != nil {
				return nil, nil, err
			}
			relJobs = append(relJobs, colJob{cols: &v.relCols, k: cat.EnsureKey(rs.Cols[c].Key), bc: &rs.Cols[c],
				typ: bt, lo: uint32(len(bt.src))})
		}
		if bt.src == nil { // the usual single set per type: no copy
			bt.src, bt.dst = rs.Src, rs.Dst
		} else {
			bt.src, bt.dst = append(slices.Clip(bt.src), rs.Src...), append(slices.Clip(bt.dst), rs.Dst...)
		}
		// The set's endpoints are the type's now: released once sorted.
		rs.Src, rs.Dst = nil, nil
		v.typeRels[t] = int64(len(bt.src))
	}
	for _, bt := range types {
		if bt != nil {
			bt.base = v.relBound
			v.relBound += uint64(len(bt.src))
		}
	}
	v.relCount = int64(v.relBound)
	return types, relJobs, nil
}

// finishBulkColumns finishes the stored columns, in parallel, and drops
// those of nulls only and the trailing keys with none.
func (v *Snapshot) finishBulkColumns() {
	var wg sync.WaitGroup
	for _, set := range []struct {
		cols  []*column
		bound uint64
	}{{v.nodeCols, v.nodeBound}, {v.relCols, v.relBound}} {
		for _, c := range set.cols {
			if c != nil {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c.finish(set.bound)
				}()
			}
		}
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

// fillColumns stores the jobs' columns, one goroutine per column (a
// key's sets write disjoint rows, but may share a chunk at a set
// boundary, so they are filled by one goroutine in order), and releases
// each job's input slices once stored, telling prog its values.
func fillColumns(jobs []colJob, prog *progress.Tracker) {
	var order []*column
	byCol := map[*column][]colJob{}
	for _, j := range jobs {
		slot := &(*j.cols)[j.k]
		if *slot == nil {
			*slot = &column{}
		}
		if byCol[*slot] == nil {
			order = append(order, *slot)
		}
		byCol[*slot] = append(byCol[*slot], j)
	}
	var wg sync.WaitGroup
	for _, c := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, j := range byCol[c] {
				c.fill(&j)
				bc := j.bc
				prog.Add(0, int64(bc.rows()))
				bc.Bool, bc.I64, bc.F64, bc.Str, bc.Any, bc.Null = nil, nil, nil, nil, nil, nil
			}
		}()
	}
	wg.Wait()
}

// fill stores bc's rows into c at ids start.. or, for a relationship
// set, at the ids its type's forward order gave them.
func (c *column) fill(j *colJob) {
	bc := j.bc
	if j.typ == nil {
		for r := range bc.rows() {
			c.put(j.start+uint64(r), bc, r)
		}
		return
	}
	lo, hi := j.lo, j.lo+uint32(bc.rows())
	perm, base := j.typ.perm, j.typ.base
	if lo == 0 && int(hi) == len(perm) && bc.Null == nil && (bc.Type == vector.Int64 || bc.Type == vector.Float64) {
		// The type's only set, without nulls: whole groups are filled by
		// one typed gather each.
		for s := 0; s < len(perm); {
			id := base + uint64(s)
			g, row := int(id>>groupShift), int(id&groupMask)
			n := min(GroupSize-row, len(perm)-s)
			if n < GroupSize || c.groups.at(uint64(g)) != nil {
				for k := range n {
					c.put(id+uint64(k), bc, int(perm[s+k]))
				}
				s += n
				continue
			}
			ch := newChunk(0, bc.Type)
			if bc.Type == vector.Int64 {
				ch.i64 = make([]int64, GroupSize)
				for k, i := range perm[s : s+GroupSize] {
					ch.i64[k] = bc.I64[i]
				}
			} else {
				ch.f64 = make([]float64, GroupSize)
				for k, i := range perm[s : s+GroupSize] {
					ch.f64[k] = bc.F64[i]
				}
			}
			for b := range ch.valid {
				ch.valid[b] = 0xff
			}
			ch.counts[bc.Type] = GroupSize
			c.groups.set(g, ch, 0)
			s += GroupSize
		}
		return
	}
	for s, i := range perm {
		if i >= lo && i < hi {
			c.put(base+uint64(s), bc, int(i-lo))
		}
	}
}

// put stores bc's row r at id: typed stores into chunks of bc's type,
// the generic chunk.set otherwise.
func (c *column) put(id uint64, bc *BulkColumn, r int) {
	if bc.Null != nil && bc.Null[r] {
		return
	}
	if bc.Type == vector.Any && bc.Any[r] == nil {
		return
	}
	g, row := int(id>>groupShift), int(id&groupMask)
	ch := c.groups.at(uint64(g))
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
		c.groups.set(g, ch, 0)
	}
	if ch.typ != bc.Type || bc.Type == vector.Any {
		ch.set(row, bc.value(r))
		return
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

// finish seals the complete groups and sums the counts.
func (c *column) finish(bound uint64) {
	c.counts = [numTypes]int64{}
	for g, ch := range c.groups.all() {
		if uint64(g+1)<<groupShift <= bound {
			ch = ch.seal()
			c.groups.set(g, ch, 0)
		}
		for t, k := range ch.counts {
			c.counts[t] += int64(k)
		}
	}
}

// colJob is one bulk column to store: node rows go to ids start..;
// relationship rows lo.. of their type to the ids typ's sort gave them.
type colJob struct {
	cols  *[]*column
	k     catalog.KeyID
	start uint64
	bc    *BulkColumn
	typ   *bulkType
	lo    uint32
}

// bulkType is one relationship type of a bulk load: its sets' endpoints
// one after the other (index i), then the forward order.
type bulkType struct {
	src, dst []uint32
	base     uint64   // the id of forward slot 0
	perm     []uint32 // forward slot s holds index perm[s], id base+s
}

// bulkAdjacency builds both CSRs of every type and fills the relationship
// table. Relationships are numbered type by type in forward slot order,
// so that the forward CSR's ids are sequential (stored as a base) and a
// node's outgoing relationships are one id range. Two counting sorts of
// 32-bit indexes (by target, then stably by source) give the forward
// order: lists sorted by target, parallel edges in input order. One more
// counting pass over the forward order gives the backward lists, sorted
// by source and then id. Types go one at a time, each releasing its
// endpoints as soon as they are sorted, to bound the memory of a load.
func (v *Snapshot) bulkAdjacency(types []*bulkType, relJobs []colJob, prog *progress.Tracker) {
	n := int(v.nodeBound)
	for t, bt := range types {
		if bt == nil {
			continue
		}
		// Progress: a quarter of the type's relationships at the end of
		// each of its four steps (sort, properties, both CSRs, the
		// relationship table), whose times are of one order.
		quarter := func(i int64) {
			size := int64(len(bt.perm))
			prog.Add(0, size*i/4-size*(i-1)/4)
		}
		offsets, perm := sortBySource(n, bt.src, bt.dst)
		// The forward lists' targets, in slot order: every later pass
		// reads them sequentially.
		fdst := make([]uint32, len(perm))
		for s, i := range perm {
			fdst[s] = bt.dst[i]
		}
		bt.src, bt.dst, bt.perm = nil, nil, perm
		quarter(1)
		var jobs []colJob
		for _, j := range relJobs {
			if j.typ == bt {
				jobs = append(jobs, j)
			}
		}
		fillColumns(jobs, nil)
		quarter(2)
		var fwd, bwd *csr.CSR
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			bwd = backwardCSR(n, offsets, fdst, bt.base)
		}()
		fwd = csr.BuildSortedSequential(n, offsets, fdst, bt.base)
		wg.Wait()
		v.adj[t] = adjPair{csr.NewAdjacency(fwd), csr.NewAdjacency(bwd)}
		quarter(3)
		if v.rels == nil { // allocated late: the sorts need the memory more
			groups := int((v.relBound + GroupSize - 1) >> groupShift)
			v.rels = make([]*relChunk, groups)
			for g := range v.rels {
				rows := min(GroupSize, int(v.relBound-uint64(g)<<groupShift))
				v.rels[g] = &relChunk{typ: make([]uint32, rows), src: make([]uint32, rows), dst: make([]uint32, rows)}
			}
		}
		for node := range n {
			for s := offsets[node]; s < offsets[node+1]; s++ {
				id := bt.base + s
				c, r := v.rels[id>>groupShift], id&groupMask
				c.typ[r], c.src[r], c.dst[r] = uint32(t), uint32(node), fdst[s]
			}
		}
		quarter(4)
		bt.perm = nil
	}
	if v.rels == nil {
		v.rels = []*relChunk{}
	}
}

// sortBySource returns the forward order of edges src[i]->dst[i]: the
// offsets of each source's list and perm, the edge index of each slot,
// lists sorted by target and then index. Both counting passes run on
// GOMAXPROCS goroutines, each scattering its share of the input in order
// from its own start positions, so the sort stays stable.
func sortBySource(n int, src, dst []uint32) ([]uint64, []uint32) {
	w := runtime.GOMAXPROCS(0)
	if len(dst) < parallelSortMin {
		w = 1
	}
	// Stable by target, carrying the source along so that the second
	// pass reads it sequentially.
	next, _ := countStarts(n, dst, w)
	byDst := make([]uint32, len(dst))
	srcByDst := make([]uint32, len(dst))
	inParallel(len(dst), w, func(k, lo, hi int) {
		pos := next[k]
		for i := lo; i < hi; i++ {
			d := dst[i]
			p := pos[d]
			byDst[p], srcByDst[p] = uint32(i), src[i]
			pos[d]++
		}
	})
	next, offsets := countStarts(n, srcByDst, w)
	perm := make([]uint32, len(dst))
	inParallel(len(dst), w, func(k, lo, hi int) {
		pos := next[k]
		for i := lo; i < hi; i++ {
			s := srcByDst[i]
			perm[pos[s]] = byDst[i]
			pos[s]++
		}
	})
	return offsets, perm
}

// parallelSortMin is the fewest relationships of a type that sortBySource
// sorts on several goroutines (a variable for tests).
var parallelSortMin = 1 << 16

// countStarts counts keys (node ids below n) in w consecutive shares and
// returns, per share, where each key's first position in the share's
// output is (a stable counting sort's scatter starts), and the offsets of
// each key's run in the whole output (len n+1). Positions fit 32 bits: a
// type has fewer than 2^32 relationships.
func countStarts(n int, keys []uint32, w int) ([][]uint32, []uint64) {
	starts := make([][]uint32, w)
	inParallel(len(keys), w, func(k, lo, hi int) {
		c := make([]uint32, n)
		for _, key := range keys[lo:hi] {
			c[key]++
		}
		starts[k] = c
	})
	offsets := make([]uint64, n+1)
	var pos uint64
	for key := range n {
		offsets[key] = pos
		for _, c := range starts {
			x := c[key]
			c[key] = uint32(pos)
			pos += uint64(x)
		}
	}
	offsets[n] = pos
	return starts, offsets
}

// inParallel runs f on w goroutines over consecutive shares [lo, hi) of
// 0..m (share k).
func inParallel(m, w int, f func(k, lo, hi int)) {
	var wg sync.WaitGroup
	for k := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(k, m*k/w, m*(k+1)/w)
		}()
	}
	wg.Wait()
}

// backwardCSR builds the backward CSR from the forward lists (offsets,
// targets fdst, ids base+slot): one stable counting pass over the forward
// order leaves each target's list sorted by source, parallel edges by id.
func backwardCSR(n int, offsets []uint64, fdst []uint32, base uint64) *csr.CSR {
	boff := make([]uint64, n+1)
	for _, d := range fdst {
		boff[d+1]++
	}
	for i := 1; i <= n; i++ {
		boff[i] += boff[i-1]
	}
	next := make([]uint64, n)
	copy(next, boff)
	bsrc := make([]uint32, len(fdst))
	brel := make([]uint64, len(fdst))
	for node := range n {
		for s := offsets[node]; s < offsets[node+1]; s++ {
			d := fdst[s]
			p := next[d]
			next[d]++
			bsrc[p], brel[p] = uint32(node), base+s
		}
	}
	return csr.BuildSorted(n, boff, bsrc, brel)
}
