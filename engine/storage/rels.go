package storage

import (
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// noRel marks a relationship slot whose id was never committed (taken by
// a transaction that rolled back) or whose relationship was deleted (a
// tombstone: ids are never reused).
const noRel = ^uint32(0)

// relChunk is the relationship table for one group of GroupSize ids:
//
//	relChunk (row r = relationship id group*GroupSize + r)
//	  typ  []uint32   TypeID, or noRel for an unused id
//	  src  []uint32   start node (node ids fit 32 bits: maxNodeID)
//	  dst  []uint32   end node
//	  len(typ) = len(src) = len(dst) = rows written (≤ GroupSize)
//	  owner         epoch of the transaction that may append in place
//
// Relationship properties are columns keyed by relationship id, like node
// properties. Keeping them in adjacency order per direction (DESIGN.md)
// is for the compaction issue.
type relChunk struct {
	owner uint64
	typ   []uint32
	src   []uint32
	dst   []uint32
}

// Rel returns relationship id's type and endpoints.
func (s *Snapshot) Rel(id uint64) (catalog.TypeID, uint64, uint64, bool) {
	g, r := id>>groupShift, int(id&groupMask)
	if g < uint64(len(s.rels)) && s.rels[g] != nil {
		c := s.rels[g]
		if r >= len(c.typ) || c.typ[r] == noRel {
			return 0, 0, 0, false
		}
		return catalog.TypeID(c.typ[r]), uint64(c.src[r]), uint64(c.dst[r]), true
	}
	if s.derived != nil && id < s.derived.bound {
		return s.derived.rel(id)
	}
	return 0, 0, 0, false
}

// relLive reports whether relationship id exists (for a derived base
// relationship, without finding its endpoints).
func (s *Snapshot) relLive(id uint64) bool {
	g, r := id>>groupShift, int(id&groupMask)
	if g < uint64(len(s.rels)) && s.rels[g] != nil {
		c := s.rels[g]
		return r < len(c.typ) && c.typ[r] != noRel
	}
	return s.derived != nil && id < s.derived.bound && s.derived.span(id) != nil
}

// CreateRel creates a relationship of type t from src to dst with the
// given properties and returns its id. Both endpoints must exist in the
// transaction's view (a 22000 error otherwise).
func (tx *Tx) CreateRel(t catalog.TypeID, src, dst uint64, keys []catalog.KeyID, vals []vector.Value) (uint64, error) {
	if tx.done {
		return 0, errDone
	}
	cat := tx.s.cat
	if int(t) >= cat.NumTypes() {
		return 0, errs.Data("storage: cannot create relationship: unknown relationship type id %d", t)
	}
	if err := checkKeys(cat, keys); err != nil {
		return 0, errs.Wrap(errs.CodeData, errs.CatData, err, "storage: cannot create relationship")
	}
	pk, pv, err := props(keys, vals)
	if err != nil {
		return 0, errs.Wrap(errs.CodeData, errs.CatData, err, "storage: cannot create relationship")
	}
	// Endpoints are checked against the current view before and after
	// begin: begin may move the Tx to a newer version, which only adds
	// nodes, so a node live before stays live.
	for _, n := range [2]uint64{src, dst} {
		if !tx.view().nodeLive(n) {
			return 0, errs.Data("storage: cannot create relationship: node %d does not exist", n)
		}
	}
	w, err := tx.begin()
	if err != nil {
		return 0, err
	}
	op := Op{Kind: OpCreateRel, ID: tx.s.nextRel.Add(1) - 1, Type: t, Src: src, Dst: dst, Keys: pk, Vals: pv}
	w.mu.Lock()
	w.applyLocked(&op)
	w.mu.Unlock()
	w.ops = append(w.ops, op)
	return op.ID, nil
}

func (w *work) createRelLocked(op *Op) {
	v := &w.v
	id := op.ID
	if !v.nodeLive(op.Src) || !v.nodeLive(op.Dst) {
		panic("BUG: storage: relationship endpoint not live at apply")
	}
	g, r := int(id>>groupShift), int(id&groupMask)
	c := w.ownRelChunkLocked(g)
	switch {
	case r < len(c.typ):
		// A hole left when a transaction that took a later id committed
		// first (optimistic transactions commit in any order). Ids are
		// never handed out twice, so only its owner fills it.
		if c.typ[r] != noRel {
			panic("BUG: storage: relationship id handed out twice")
		}
		c.typ[r], c.src[r], c.dst[r] = uint32(op.Type), uint32(op.Src), uint32(op.Dst)
	default:
		for len(c.typ) < r { // ids of rolled-back or not yet committed transactions
			c.typ = append(c.typ, noRel)
			c.src = append(c.src, 0)
			c.dst = append(c.dst, 0)
		}
		c.typ = append(c.typ, uint32(op.Type))
		c.src = append(c.src, uint32(op.Src)) // live nodes: ids <= maxNodeID
		c.dst = append(c.dst, uint32(op.Dst))
	}
	if id >= v.relBound {
		v.relBound = id + 1
	}
	v.relCount++
	t := int(op.Type)
	for len(v.typeRels) <= t {
		v.typeRels = append(v.typeRels, 0)
	}
	v.typeRels[t]++
	for len(w.mu.pending) <= t {
		w.mu.pending = append(w.mu.pending, nil)
	}
	w.mu.pending[t] = append(w.mu.pending[t], csr.Edge{Src: op.Src, Dst: op.Dst, Rel: id})
	setProps(&v.relCols, id, op.Keys, op.Vals, w.epoch)
}

// ownRelChunkLocked returns the relationship table chunk of group g that
// the transaction may change, copying a shared one.
func (w *work) ownRelChunkLocked(g int) *relChunk {
	v := &w.v
	if !w.mu.ownRels {
		// Copied on the first write, not at the start of every write
		// transaction: a commit that creates nodes copied 8 bytes per
		// 2048 relationships for nothing.
		v.rels = append([]*relChunk(nil), v.rels...)
		w.mu.ownRels = true
	}
	for len(v.rels) <= g {
		v.rels = append(v.rels, nil)
	}
	c := v.rels[g]
	if c == nil && v.derived != nil {
		if c = v.derived.chunk(g, w.epoch); c != nil {
			v.rels[g] = c
			return c
		}
	}
	if c == nil || c.owner != w.epoch {
		n := &relChunk{owner: w.epoch}
		if c != nil {
			n.typ = append(make([]uint32, 0, len(c.typ)+1), c.typ...)
			n.src = append(make([]uint32, 0, len(c.src)+1), c.src...)
			n.dst = append(make([]uint32, 0, len(c.dst)+1), c.dst...)
		}
		c, v.rels[g] = n, n
	}
	return c
}

// flushLocked applies the pending edges of type t (inserted and deleted)
// to the working version's adjacencies: one csr Apply per direction per
// batch, never per edge. A type left without relationships has no
// adjacency (Check requires it).
func (w *work) flushLocked(t catalog.TypeID) {
	var fwd []csr.Edge
	var del []uint64
	if int(t) < len(w.mu.pending) {
		fwd = w.mu.pending[t]
	}
	if int(t) < len(w.mu.pendingDel) {
		del = w.mu.pendingDel[t]
	}
	if len(fwd) == 0 && len(del) == 0 {
		return
	}
	if fwd != nil {
		w.mu.pending[t] = nil
	}
	if del != nil {
		w.mu.pendingDel[t] = nil
	}
	bwd := make([]csr.Edge, len(fwd))
	for i, e := range fwd {
		bwd[i] = csr.Edge{Src: e.Dst, Dst: e.Src, Rel: e.Rel}
	}
	for int(t) >= len(w.v.adj) {
		w.v.adj = append(w.v.adj, adjPair{})
	}
	p := &w.v.adj[t]
	for d, edges := range [2][]csr.Edge{fwd, bwd} {
		a := p[d]
		if a == nil {
			a = csr.NewAdjacency(csr.Build(0, nil))
		}
		p[d] = a.Apply(edges, del, w.v.ts)
	}
	if w.v.typeRels[t] == 0 {
		*p = adjPair{}
	}
}

// flushAllLocked applies every pending edge (at commit).
func (w *work) flushAllLocked() {
	for t := 0; t < max(len(w.mu.pending), len(w.mu.pendingDel)); t++ {
		w.flushLocked(catalog.TypeID(t))
	}
}

// RelIDBound is one more than the largest relationship id the version
// has used: every relationship id is below it.
func (s *Snapshot) RelIDBound() uint64 { return s.relBound }
