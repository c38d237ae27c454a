package csr

import (
	"cmp"
	"fmt"
	"slices"
)

// Apply returns a new version with the edges of inserted added and the
// relationships deleted removed, both stamped with commit timestamp ts.
// Deletes apply before inserts. Node ids may exceed the base's NumNodes.
// A call with nothing to change returns a itself.
//
// The old version is unchanged. The cost is O(len(groups) + touched groups
// + the touched nodes' overlay entries + changes·log), never O(edges): the
// group table is copied, then only the touched groups and deltas.
//
// The storage layer validates before it calls, so every violation is a BUG
// panic: deleting an id that is not live in this version (unknown, already
// deleted, or inserted by this same call), inserting an id that is live in
// the overlay, or an id >= 2^56. Inserting an id that is live in the base
// is not detected here (that would need the base's relationship index on
// every insert); Check reports it.
func (a *Adjacency) Apply(inserted []Edge, deleted []uint64, ts uint64) *Adjacency {
	if len(inserted) == 0 && len(deleted) == 0 {
		return a
	}
	tok := new(editToken)
	b := &Adjacency{
		base:     a.base,
		groups:   slices.Clone(a.groups),
		rels:     a.rels,
		idBound:  a.idBound,
		numEdges: a.numEdges - len(deleted) + len(inserted),
		ts:       max(a.ts, ts),
		overlay:  a.overlay + len(inserted),
	}
	pend := make(map[uint64]*pending)
	at := func(src uint64) *pending {
		p := pend[src]
		if p == nil {
			p = new(pending)
			pend[src] = p
		}
		return p
	}
	for _, rel := range deleted {
		if src, ok := b.rels.get(rel); ok {
			b.rels.remove(tok, rel)
			b.overlay-- // the insert's entry goes
			p := at(src)
			p.unins = append(p.unins, rel)
			continue
		}
		slot, ok := a.base.slotOf(rel)
		if !ok {
			panic(fmt.Sprintf("BUG: csr: delete of unknown relationship %d", rel))
		}
		src := a.base.nodeOfSlot(slot)
		if d := a.deltaOf(src); d != nil && d.baseDeleted(rel) {
			panic(fmt.Sprintf("BUG: csr: relationship %d deleted twice", rel))
		}
		b.overlay++
		p := at(src)
		p.del = append(p.del, delEntry{rel, ts})
	}
	for _, e := range inserted {
		if e.Src >= maxNodes || e.Dst >= maxNodes {
			panic(fmt.Sprintf("BUG: csr: insert of edge %d->%d beyond 2^56 nodes", e.Src, e.Dst))
		}
		if _, dup := b.rels.get(e.Rel); dup {
			panic(fmt.Sprintf("BUG: csr: relationship %d inserted twice", e.Rel))
		}
		b.rels.put(tok, e.Rel, e.Src)
		p := at(e.Src)
		p.ins = append(p.ins, insEntry{e.Dst, e.Rel, ts})
		b.idBound = max(b.idBound, e.Src+1, e.Dst+1)
	}
	for src, p := range pend {
		b.setDelta(tok, src, p.merge(a.deltaOf(src)))
	}
	return b
}

// pending collects one node's changes of one Apply.
type pending struct {
	ins   []insEntry // new overlay edges
	unins []uint64   // overlay edges deleted
	del   []delEntry // base edges deleted
}

// merge returns old's successor with p applied, nil when it is empty. It
// allocates fresh slices: old may be shared with other versions.
func (p *pending) merge(old *delta) *delta {
	if old == nil {
		old = &delta{}
	}
	slices.SortFunc(p.ins, func(x, y insEntry) int { return cmpSlot(x.dst, x.rel, y.dst, y.rel) })
	slices.SortFunc(p.del, func(x, y delEntry) int { return cmp.Compare(x.rel, y.rel) })
	for i := 1; i < len(p.del); i++ {
		if p.del[i].rel == p.del[i-1].rel {
			panic(fmt.Sprintf("BUG: csr: relationship %d deleted twice", p.del[i].rel))
		}
	}
	slices.Sort(p.unins)

	kept := make([]insEntry, 0, max(0, len(old.ins)-len(p.unins)))
	for _, e := range old.ins {
		if _, gone := slices.BinarySearch(p.unins, e.rel); !gone {
			kept = append(kept, e)
		}
	}
	if len(old.ins)-len(kept) != len(p.unins) {
		panic("BUG: csr: overlay index and node delta disagree")
	}
	n := &delta{
		ins: mergeSorted(kept, p.ins, func(x, y insEntry) int { return cmpSlot(x.dst, x.rel, y.dst, y.rel) }),
		del: mergeSorted(old.del, p.del, func(x, y delEntry) int { return cmp.Compare(x.rel, y.rel) }),
	}
	if len(n.ins) == 0 && len(n.del) == 0 {
		return nil
	}
	return n
}

// mergeSorted merges two sorted slices into a new one.
func mergeSorted[T any](x, y []T, cmp func(T, T) int) []T {
	if len(x)+len(y) == 0 {
		return nil
	}
	out := make([]T, 0, len(x)+len(y))
	for len(x) > 0 && len(y) > 0 {
		if cmp(y[0], x[0]) < 0 {
			out, y = append(out, y[0]), y[1:]
		} else {
			out, x = append(out, x[0]), x[1:]
		}
	}
	out = append(out, x...)
	return append(out, y...)
}

// setDelta installs d as node's delta, copying node's group unless this
// Apply already owns it.
func (b *Adjacency) setDelta(tok *editToken, node uint64, d *delta) {
	gi := node >> groupShift
	if gi >= uint64(len(b.groups)) {
		if d == nil {
			return
		}
		b.groups = append(b.groups, make([]*group, gi+1-uint64(len(b.groups)))...)
	}
	g := b.groups[gi]
	switch {
	case g == nil:
		if d == nil {
			return
		}
		g = &group{owner: tok}
	case g.owner != tok:
		c := *g
		c.owner = tok
		g = &c
	}
	i := node & groupMask
	if g.nodes[i] != nil {
		g.dirty--
	}
	if d != nil {
		g.dirty++
	}
	g.nodes[i] = d
	if g.dirty == 0 {
		g = nil
	}
	b.groups[gi] = g
}
