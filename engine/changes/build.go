package changes

import (
	"reflect"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Building a commit's changes. The ops of a commit say which entities it
// wrote, in order; the commit's base version and the version it made say
// what each looked like before and after. An entity gets one change
// however many ops wrote it; one created and deleted in the same commit,
// or updated to what it was, gets none. Schema ops (indexes,
// constraints) change no data and get none.

// builder builds changes; the dispatcher reuses one (its maps and
// scratch space) for every commit.
type builder struct {
	seen   map[entityRef]struct{}
	order  []entityRef
	labels []catalog.LabelID
	redact Redactor // nil: none
}

// Redactor hides, in place, the property values an event must not carry
// (field-level encryption: a value of an encrypted field not yet sealed,
// as it was before the commit that declared the field). version is the
// commit's version; labels are the node's labels (before and after).
type Redactor func(version *storage.Snapshot, labels []string, props []Property)

type entityRef struct {
	rel bool
	id  uint64
}

// build returns rec's changes, or its bulk summary when it wrote more
// than MaxPerCommit entities.
func (b *builder) build(cat *catalog.Catalog, rec *storage.CommitRecord) Batch {
	out := Batch{LSN: rec.LSN, TS: rec.TS, CommittedAt: rec.At}
	if !b.collect(rec.Ops) {
		out.Bulk = bulkSummary(cat, rec)
		return out
	}
	out.Changes = make([]Change, 0, len(b.order))
	for i, e := range b.order {
		var c Change
		var ok bool
		if e.rel {
			c, ok = b.relChange(cat, rec, e.id)
		} else {
			c, ok = b.nodeChange(cat, rec, e.id)
		}
		if ok {
			c.Ordinal = uint32(i)
			out.Changes = append(out.Changes, c)
		}
	}
	return out
}

// collect lists the entities ops wrote in first-write order; false when
// there are more than MaxPerCommit.
func (b *builder) collect(ops []storage.Op) bool {
	if b.seen == nil {
		b.seen = map[entityRef]struct{}{}
	}
	clear(b.seen)
	b.order = b.order[:0]
	for i := range ops {
		e, ok := opEntity(&ops[i])
		if !ok {
			continue
		}
		if _, dup := b.seen[e]; dup {
			continue
		}
		if len(b.order) == MaxPerCommit {
			return false
		}
		b.seen[e] = struct{}{}
		b.order = append(b.order, e)
	}
	return true
}

func opEntity(op *storage.Op) (entityRef, bool) {
	switch op.Kind {
	case storage.OpCreateNode, storage.OpSetNodeProps, storage.OpAddLabels, storage.OpRemoveLabels, storage.OpDeleteNode:
		return entityRef{id: op.ID}, true
	case storage.OpCreateRel, storage.OpSetRelProps, storage.OpDeleteRel:
		return entityRef{rel: true, id: op.ID}, true
	}
	return entityRef{}, false
}

func nodeLive(s *storage.Snapshot, id uint64) bool {
	return id <= 1<<32-1 && s.LiveNodes().Contains(uint32(id))
}

func (b *builder) nodeChange(cat *catalog.Catalog, rec *storage.CommitRecord, id uint64) (Change, bool) {
	before, after := nodeLive(rec.Base, id), nodeLive(rec.Version, id)
	c := Change{Entity: Node, ID: id}
	var lb, la []string
	switch {
	case before && after:
		c.Op = Updated
	case after:
		c.Op = Created
	case before:
		c.Op = Deleted
	default:
		return c, false // created and deleted by this commit
	}
	if before {
		lb = b.nodeLabels(cat, rec.Base, id)
		c.Before = properties(cat, rec.Base.NodeProps, id)
	}
	if after {
		la = b.nodeLabels(cat, rec.Version, id)
		c.After = properties(cat, rec.Version.NodeProps, id)
	}
	if b.redact != nil {
		all := append(append([]string(nil), lb...), la...)
		b.redact(rec.Version, all, c.Before)
		b.redact(rec.Version, all, c.After)
	}
	switch c.Op {
	case Created:
		c.Labels = la
	case Deleted:
		c.Labels = lb
	default:
		c.Labels = la
		c.LabelsAdded, c.LabelsRemoved = labelDiff(la, lb), labelDiff(lb, la)
		if len(c.LabelsAdded) == 0 && len(c.LabelsRemoved) == 0 && propertiesEqual(c.Before, c.After) {
			return c, false // written, but to what it was
		}
	}
	return c, true
}

func (b *builder) relChange(cat *catalog.Catalog, rec *storage.CommitRecord, id uint64) (Change, bool) {
	tb, sb, db, before := rec.Base.Rel(id)
	ta, sa, da, after := rec.Version.Rel(id)
	c := Change{Entity: Relationship, ID: id}
	switch {
	case before && after:
		c.Op = Updated
	case after:
		c.Op = Created
	case before:
		c.Op = Deleted
		ta, sa, da = tb, sb, db
	default:
		return c, false
	}
	c.Type, c.Start, c.End = cat.TypeName(ta), sa, da
	if before {
		c.Before = properties(cat, rec.Base.RelProps, id)
	}
	if after {
		c.After = properties(cat, rec.Version.RelProps, id)
	}
	if c.Op == Updated && propertiesEqual(c.Before, c.After) {
		return c, false
	}
	c.StartLabels = b.endpointLabels(cat, rec, c.Start)
	c.EndLabels = b.endpointLabels(cat, rec, c.End)
	return c, true
}

// endpointLabels are a relationship endpoint's labels after the commit,
// or before it when the commit deleted the node.
func (b *builder) endpointLabels(cat *catalog.Catalog, rec *storage.CommitRecord, id uint64) []string {
	if nodeLive(rec.Version, id) {
		return b.nodeLabels(cat, rec.Version, id)
	}
	return b.nodeLabels(cat, rec.Base, id)
}

func (b *builder) nodeLabels(cat *catalog.Catalog, s *storage.Snapshot, id uint64) []string {
	b.labels = s.AppendNodeLabels(b.labels[:0], id)
	if len(b.labels) == 0 {
		return nil
	}
	out := make([]string, len(b.labels))
	for i, l := range b.labels {
		out[i] = cat.LabelName(l)
	}
	return out
}

// properties lists an entity's properties in key order; non-nil (empty)
// for an entity without any, so that nil means "did not exist".
func properties(cat *catalog.Catalog, each func(uint64, func(catalog.KeyID, vector.Value)), id uint64) []Property {
	out := []Property{}
	each(id, func(k catalog.KeyID, v vector.Value) {
		out = append(out, Property{Key: cat.KeyName(k), Value: v})
	})
	return out
}

func propertiesEqual(a, b []Property) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || !reflect.DeepEqual(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// labelDiff is a minus b (both short lists).
func labelDiff(a, b []string) []string {
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, l)
		}
	}
	return out
}

// bulkSummary counts a large commit's writes and names the labels and
// types it touched, without building a change per entity: one pass over
// the ops plus one bitmap intersection per label.
func bulkSummary(cat *catalog.Catalog, rec *storage.CommitRecord) *Bulk {
	s := &Bulk{}
	labels := map[catalog.LabelID]bool{}
	types := map[catalog.TypeID]bool{}
	touched := roaring.New() // existing nodes written: their labels are looked up below
	for i := range rec.Ops {
		op := &rec.Ops[i]
		switch op.Kind {
		case storage.OpCreateNode:
			s.NodesCreated++
			for _, l := range op.Labels {
				labels[l] = true
			}
		case storage.OpAddLabels, storage.OpRemoveLabels:
			s.NodesUpdated++
			for _, l := range op.Labels {
				labels[l] = true
			}
			touched.Add(uint32(op.ID))
		case storage.OpSetNodeProps:
			s.NodesUpdated++
			touched.Add(uint32(op.ID))
		case storage.OpDeleteNode:
			s.NodesDeleted++
			touched.Add(uint32(op.ID))
		case storage.OpCreateRel:
			s.RelationshipsCreated++
			types[op.Type] = true
		case storage.OpDeleteRel:
			s.RelationshipsDeleted++
			types[op.Type] = true
		case storage.OpSetRelProps:
			s.RelationshipsUpdated++
			if t, _, _, ok := rec.Version.Rel(op.ID); ok {
				types[t] = true
			} else if t, _, _, ok := rec.Base.Rel(op.ID); ok {
				types[t] = true
			}
		}
	}
	if !touched.IsEmpty() {
		for _, l := range cat.Labels() {
			if !labels[l] && (rec.Base.LabelNodes(l).Intersects(touched) || rec.Version.LabelNodes(l).Intersects(touched)) {
				labels[l] = true
			}
		}
	}
	for _, l := range cat.Labels() {
		if labels[l] {
			s.Labels = append(s.Labels, cat.LabelName(l))
		}
	}
	for _, t := range cat.Types() {
		if types[t] {
			s.Types = append(s.Types, cat.TypeName(t))
		}
	}
	return s
}

// Filter is the part of b that patterns select; ok is false when
// nothing is. With no patterns, or when every change is selected, b is
// shared.
func (b Batch) Filter(patterns []*Pattern) (Batch, bool) {
	if b.Bulk != nil {
		if len(patterns) == 0 {
			return b, true
		}
		for _, p := range patterns {
			if p.MatchesBulk(b.Bulk) {
				return b, true
			}
		}
		return b, false
	}
	if len(patterns) == 0 {
		return b, len(b.Changes) > 0
	}
	var keep []Change
	all := true
	for i := range b.Changes {
		if matchesAny(patterns, &b.Changes[i]) {
			if !all {
				keep = append(keep, b.Changes[i])
			}
			continue
		}
		if all {
			all = false
			keep = append([]Change(nil), b.Changes[:i]...)
		}
	}
	if all {
		return b, len(b.Changes) > 0
	}
	if len(keep) == 0 {
		return b, false
	}
	b.Changes = keep
	return b, true
}

func matchesAny(patterns []*Pattern, c *Change) bool {
	for _, p := range patterns {
		if p.Matches(c) {
			return true
		}
	}
	return false
}
