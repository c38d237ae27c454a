package fulltext

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/index"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// source is what documents are read from: a storage snapshot or a
// transaction (its own writes included).
type source interface {
	HasLabel(id uint64, l catalog.LabelID) bool
	NodeProp(id uint64, k catalog.KeyID) vector.Value
	Rel(id uint64) (catalog.TypeID, uint64, uint64, bool)
	RelProp(id uint64, k catalog.KeyID) vector.Value
}

// Index is one FULLTEXT index.
type Index struct {
	def *catalog.Index
	cat *catalog.Catalog
	bi  bleve.Index
	// live maps an element to its current document; only Populate and
	// Apply (one goroutine) touch it, as superseded (gc.go).
	live       map[uint64]liveDoc
	superseded []oldVersion
	// mem is what the documents hold against the server's budget
	// (memory.go); nil holds anything.
	mem *index.Memory
	// horizon is the newest "to" of a pruned version: a search at an
	// older snapshot could miss it, so it fails instead (gc.go).
	horizon atomic.Uint64
	// mu orders Close after searches: searches hold it shared.
	mu     sync.RWMutex
	closed bool
}

// liveDoc is an element's current document: the timestamp it is from,
// and what it was charged (docCost).
type liveDoc struct {
	from uint64
	cost int64
}

func newIndex(def *catalog.Index, cat *catalog.Catalog, bi bleve.Index) *Index {
	return &Index{def: def, cat: cat, bi: bi, live: map[uint64]liveDoc{}}
}

// openTo is _q_to of a current document: after every timestamp (exact
// in a float64, as every timestamp below 2^53 is).
const openTo = float64(1 << 53)

// populateBatch is how many documents a bleve batch of Populate holds.
const populateBatch = 1024

// Populate indexes every element of snap with the index's label (type)
// and text, as documents from timestamp 0.
func (x *Index) Populate(ctx context.Context, snap *storage.Snapshot, prog *index.Progress) error {
	b := x.bi.NewBatch()
	add := func(id uint64) error {
		if doc := x.doc(snap, id); doc != nil {
			cost := docCost(doc)
			if err := x.mem.Charge(cost); err != nil {
				return err
			}
			doc[fieldFrom], doc[fieldTo] = 0.0, openTo
			if err := b.Index(docID(id, 0), doc); err != nil {
				return err
			}
			x.live[id] = liveDoc{from: 0, cost: cost}
		}
		prog.Done.Add(1)
		if b.Size() >= populateBatch {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := x.bi.Batch(b); err != nil {
				return err
			}
			b.Reset()
		}
		return nil
	}
	if x.def.Rel {
		n := snap.RelIDBound()
		prog.Total.Store(int64(n))
		for id := uint64(0); id < n; id++ {
			if err := add(id); err != nil {
				return err
			}
		}
	} else {
		l, ok := x.cat.LookupLabel(x.def.Label)
		if ok {
			ids := snap.LabelNodes(l)
			prog.Total.Store(int64(ids.GetCardinality()))
			it := ids.Iterator()
			for it.HasNext() {
				if err := add(uint64(it.Next())); err != nil {
					return err
				}
			}
		}
	}
	return x.bi.Batch(b)
}

// Apply indexes a run of commits in one bleve batch: for each element a
// commit touched whose text changed, the current document closes at the
// commit's ts and a new one opens. (A batch keeps the last write of a
// document id, so an element changed by several commits of the run ends
// right: each later commit rewrites the version the earlier one opened.)
func (x *Index) Apply(recs []*storage.CommitRecord) error {
	b := x.bi.NewBatch()
	x.prune(b, recs[len(recs)-1].At)
	for _, rec := range recs {
		if err := x.applyOne(b, rec); err != nil {
			return err
		}
	}
	if b.Size() == 0 {
		return nil
	}
	return x.bi.Batch(b)
}

func (x *Index) applyOne(b *bleve.Batch, rec *storage.CommitRecord) error {
	ts := float64(rec.TS)
	for _, id := range x.touched(rec.Ops) {
		old, cur := x.doc(rec.Base, id), x.doc(rec.Version, id)
		if sameDoc(old, cur) {
			continue
		}
		if l, ok := x.live[id]; ok && old != nil {
			old[fieldFrom], old[fieldTo] = float64(l.from), ts
			if err := b.Index(docID(id, l.from), old); err != nil {
				return err
			}
			delete(x.live, id)
			x.superseded = append(x.superseded, oldVersion{doc: docID(id, l.from), to: rec.TS, at: rec.At, cost: l.cost})
		}
		if cur != nil {
			cost := docCost(cur)
			if err := x.mem.Charge(cost); err != nil {
				return err
			}
			cur[fieldFrom], cur[fieldTo] = ts, openTo
			if err := b.Index(docID(id, rec.TS), cur); err != nil {
				return err
			}
			x.live[id] = liveDoc{from: rec.TS, cost: cost}
		}
	}
	return nil
}

// touched lists the elements of the index's kind that ops wrote, once
// each, in first-write order.
func (x *Index) touched(ops []storage.Op) []uint64 {
	var out []uint64
	seen := map[uint64]bool{}
	for i := range ops {
		op := &ops[i]
		var rel bool
		switch op.Kind {
		case storage.OpCreateNode, storage.OpSetNodeProps, storage.OpAddLabels, storage.OpRemoveLabels, storage.OpDeleteNode:
		case storage.OpCreateRel, storage.OpSetRelProps, storage.OpDeleteRel:
			rel = true
		default:
			continue
		}
		if rel != x.def.Rel || seen[op.ID] {
			continue
		}
		seen[op.ID] = true
		out = append(out, op.ID)
	}
	return out
}

// doc is element id's document in src: its indexed properties' text;
// nil when it is not of the index's label (type), is gone, or has no
// text in any of them.
func (x *Index) doc(src source, id uint64) map[string]any {
	if x.def.Rel {
		t, ok := x.cat.LookupType(x.def.Label)
		if !ok {
			return nil
		}
		if rt, _, _, live := src.Rel(id); !live || rt != t {
			return nil
		}
	} else {
		l, ok := x.cat.LookupLabel(x.def.Label)
		if !ok || !src.HasLabel(id, l) {
			return nil
		}
	}
	var doc map[string]any
	for _, name := range x.def.Keys {
		k, ok := x.cat.LookupKey(name)
		if !ok {
			continue
		}
		var v vector.Value
		if x.def.Rel {
			v = src.RelProp(id, k)
		} else {
			v = src.NodeProp(id, k)
		}
		if s, ok := text(v); ok {
			if doc == nil {
				doc = map[string]any{fieldEID: strconv.FormatUint(id, 10)}
			}
			doc[name] = s
		}
	}
	return doc
}

// text is the indexed text of a value: a string, or a list's strings
// joined by spaces; other values are not text (as in Neo4j).
func text(v vector.Value) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case []vector.Value:
		var parts []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " "), len(parts) > 0
	}
	return "", false
}

func sameDoc(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func docID(id, from uint64) string {
	return strconv.FormatUint(id, 10) + "@" + strconv.FormatUint(from, 10)
}

// elementOf is the element id of a document id.
func elementOf(doc string) (uint64, bool) {
	i := strings.IndexByte(doc, '@')
	if i < 0 {
		return 0, false
	}
	id, err := strconv.ParseUint(doc[:i], 10, 64)
	return id, err == nil
}

// Close releases the bleve index once running searches end.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil
	}
	x.closed = true
	return x.bi.Close()
}
