package export

import (
	"sort"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// A property key whose values have two types among the nodes of one
// label set (or the relationships of one type) cannot be one typed
// column. The import layout can still hold it: several files may carry
// the same labels (or type), so such a group is written as one file per
// combination of its mixed keys' types, each file's column of one type.
// split finds those combinations by reading the group's rows again (only
// the groups that need it: a graph without mixed keys is read twice, not
// three times), and pass two sends each row to its file by the same
// signature.

// class is the kind a value's column takes in a split: DATETIMEs in UTC
// and elsewhere share a column (as merge has it).
func class(k kind) kind {
	if k == kindDateTime {
		return kindZonedDateTime
	}
	return k
}

// mixedKeys are g's mixed keys in id order.
func (g *group) mixedKeys() []catalog.KeyID {
	keys := make([]catalog.KeyID, 0, len(g.mixed))
	for k := range g.mixed {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// signature is the types of a row's mixed keys (0: absent), as a map key.
func signature(keys []catalog.KeyID, get func(catalog.KeyID) vector.Value, buf []byte) string {
	buf = buf[:0]
	for _, k := range keys {
		var kd kind
		if v := get(k); v != nil {
			kd, _ = kindOf(v) // values kindOf refuses failed pass one
		}
		buf = append(buf, byte(class(kd)))
	}
	return string(buf)
}

// child is the file of g for signature sig, made on first use.
func (g *group) child(sig string) *group {
	if c, ok := g.children[sig]; ok {
		return c
	}
	c := &group{rels: g.rels, name: g.name, labels: g.labels, typ: g.typ, colOf: map[catalog.KeyID]int{}}
	if g.children == nil {
		g.children = map[string]*group{}
	}
	g.children[sig] = c
	g.order = append(g.order, c)
	return c
}

// split reads the rows of the groups with mixed keys again, building each
// one's children (files), and puts the children in the groups' places.
func (p *plan) split(snap *storage.Snapshot, cat *catalog.Catalog, stop func() error) error {
	keys := map[*group][]catalog.KeyID{}
	for _, gs := range [][]*group{p.nodes, p.rels} {
		for _, g := range gs {
			if len(g.mixed) > 0 {
				g.keys = g.mixedKeys()
				keys[g] = g.keys
			}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	var buf []byte
	var labels []catalog.LabelID
	var err error
	add := func(g *group, get func(catalog.KeyID) vector.Value, each func(func(catalog.KeyID, vector.Value))) error {
		c := g.child(signature(keys[g], get, buf))
		c.rows++
		each(func(k catalog.KeyID, v vector.Value) {
			if err == nil {
				err = c.observe(cat, k, v)
			}
		})
		return err
	}
	it := snap.LiveNodes().Iterator()
	for n := 0; it.HasNext(); n++ {
		if n%4096 == 4095 {
			if err := stop(); err != nil {
				return err
			}
		}
		id := uint64(it.Next())
		labels = snap.AppendNodeLabels(labels[:0], id)
		g := p.nodeOf[labelKey(labels)]
		if keys[g] == nil {
			continue
		}
		get := func(k catalog.KeyID) vector.Value { return snap.NodeProp(id, k) }
		each := func(fn func(catalog.KeyID, vector.Value)) { snap.NodeProps(id, fn) }
		if err := add(g, get, each); err != nil {
			return err
		}
	}
	err = eachRel(snap, cat, stop, func(int64) {}, func(t catalog.TypeID, id, _, _ uint64) error {
		g := p.relOf[t]
		if keys[g] == nil {
			return nil
		}
		get := func(k catalog.KeyID) vector.Value { return snap.RelProp(id, k) }
		each := func(fn func(catalog.KeyID, vector.Value)) { snap.RelProps(id, fn) }
		return add(g, get, each)
	})
	if err != nil {
		return err
	}
	replace := func(gs []*group) []*group {
		var out []*group
		for _, g := range gs {
			if g.children == nil {
				out = append(out, g)
				continue
			}
			out = append(out, g.order...)
		}
		return out
	}
	p.nodes, p.rels = replace(p.nodes), replace(p.rels)
	return nil
}

// fileOf is the file (group) a row of g goes to in pass two.
func (g *group) fileOf(get func(catalog.KeyID) vector.Value, buf []byte) *group {
	if g.children == nil {
		return g
	}
	return g.children[signature(g.keys, get, buf)]
}
