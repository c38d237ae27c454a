package export

import (
	"fmt"
	"sort"
	"strings"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// group is the content of one file: the nodes of one set of labels, or
// the relationships of one type, with the property columns they carry.
type group struct {
	rels   bool
	desc   string // what() when set: COPY … TO's "the query's rows"
	name   string // "A:B" (labels in catalog order) or the type
	labels []string
	typ    catalog.TypeID
	file   string
	rows   int64
	cols   []column
	colOf  map[catalog.KeyID]int
	// mixed are the keys holding values of two types in the group (by
	// key id): the group is then written as several files, one per
	// combination of those keys' types (split.go), its children.
	mixed    map[catalog.KeyID]bool
	keys     []catalog.KeyID // the mixed keys in id order
	children map[string]*group
	order    []*group // the children in the order they were found
}

func (g *group) what() string {
	if g.desc != "" {
		return g.desc
	}
	if g.rels {
		return fmt.Sprintf("relationships of type %s", g.name)
	}
	if g.name == "" {
		return "nodes without labels"
	}
	return fmt.Sprintf("nodes labelled %s", g.name)
}

// observe adds a property value to the group's columns (pass one).
func (g *group) observe(cat *catalog.Catalog, k catalog.KeyID, v vector.Value) error {
	kd, why := kindOf(v)
	if why != "" {
		return errs.NotSupported("%s: property %s holds %s; docs/export.md lists what the files can hold", g.what(), cat.KeyName(k), why)
	}
	i, ok := g.colOf[k]
	if !ok {
		i = len(g.cols)
		g.colOf[k] = i
		g.cols = append(g.cols, column{key: k, name: cat.KeyName(k), kind: kd})
	}
	c := &g.cols[i]
	if g.mixed[k] {
		return nil
	}
	if m, ok := merge(c.kind, kd); ok {
		c.kind = m
	} else {
		if g.mixed == nil {
			g.mixed = map[catalog.KeyID]bool{}
		}
		g.mixed[k] = true
		return nil
	}
	if kd == kindLocalDateTime || kd == kindDateTime {
		if why := c.observe(v); why != "" {
			return errs.NotSupported("%s: property %s holds %s", g.what(), c.name, why)
		}
	}
	if kd == kindList {
		return g.observeList(c, v.([]vector.Value))
	}
	return nil
}

// observeList checks a LIST's elements: scalars of one kind across the
// column (a Parquet LIST has one element type).
func (g *group) observeList(c *column, l []vector.Value) error {
	for _, e := range l {
		if e == nil {
			continue
		}
		ek, why := kindOf(e)
		switch {
		case why != "":
			return errs.NotSupported("%s: property %s holds a LIST holding %s; docs/export.md lists what the files can hold", g.what(), c.name, why)
		case ek == kindList:
			return errs.NotSupported("%s: property %s holds a LIST of lists (the importer reads lists of scalars only)", g.what(), c.name)
		case c.elem == 0:
			c.elem = ek
		default:
			m, ok := merge(c.elem, ek)
			if !ok {
				return errs.NotSupported("%s: property %s holds lists with %s and %s elements; a Parquet LIST has one element type (docs/export.md)", g.what(), c.name, c.elem, ek)
			}
			c.elem = m
		}
		if ek == kindLocalDateTime || ek == kindDateTime {
			if why := c.observe(e); why != "" {
				return errs.NotSupported("%s: property %s holds a LIST holding %s", g.what(), c.name, why)
			}
		}
	}
	return nil
}

// plan is what pass one found: the files and their columns.
type plan struct {
	nodes, rels []*group
	// nodeOf maps a label set's key (labelKey) to its group; relOf a type.
	nodeOf map[string]*group
	relOf  map[catalog.TypeID]*group
	// idCol, fromCol and toCol are the key and endpoint columns' names:
	// "_id", "_from", "_to", with more underscores in front when a
	// property has that name.
	idCol, fromCol, toCol string
}

// labelKey is a label set as a map key.
func labelKey(ls []catalog.LabelID) string {
	var b strings.Builder
	for _, l := range ls {
		fmt.Fprintf(&b, "%d,", l)
	}
	return b.String()
}

// scan is pass one: it visits every node and relationship of snap to find
// the files, their columns and the columns' types.
func scan(snap *storage.Snapshot, cat *catalog.Catalog, stop func() error, tick func(items int64)) (*plan, error) {
	p := &plan{nodeOf: map[string]*group{}, relOf: map[catalog.TypeID]*group{}}
	var labels []catalog.LabelID
	var err error
	it := snap.LiveNodes().Iterator()
	n := 0
	for ; it.HasNext(); n++ {
		id := uint64(it.Next())
		if n%4096 == 4095 {
			if err := stop(); err != nil {
				return nil, err
			}
			tick(4096)
		}
		labels = snap.AppendNodeLabels(labels[:0], id)
		g := p.nodeGroup(cat, labels)
		g.rows++
		snap.NodeProps(id, func(k catalog.KeyID, v vector.Value) {
			if err == nil {
				err = g.observe(cat, k, v)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	tick(int64(n % 4096))
	err = eachRel(snap, cat, stop, tick, func(t catalog.TypeID, id, _, _ uint64) error {
		g := p.relGroup(cat, t)
		g.rows++
		var err error
		snap.RelProps(id, func(k catalog.KeyID, v vector.Value) {
			if err == nil {
				err = g.observe(cat, k, v)
			}
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := p.split(snap, cat, stop); err != nil {
		return nil, err
	}
	return p, p.finish()
}

func (p *plan) nodeGroup(cat *catalog.Catalog, labels []catalog.LabelID) *group {
	key := labelKey(labels)
	if g, ok := p.nodeOf[key]; ok {
		return g
	}
	g := &group{colOf: map[catalog.KeyID]int{}}
	for _, l := range labels {
		g.labels = append(g.labels, cat.LabelName(l))
	}
	g.name = strings.Join(g.labels, ":")
	p.nodeOf[key] = g
	p.nodes = append(p.nodes, g)
	return g
}

func (p *plan) relGroup(cat *catalog.Catalog, t catalog.TypeID) *group {
	if g, ok := p.relOf[t]; ok {
		return g
	}
	g := &group{rels: true, typ: t, name: cat.TypeName(t), colOf: map[catalog.KeyID]int{}}
	p.relOf[t] = g
	p.rels = append(p.rels, g)
	return g
}

// finish checks the names the import layout must be able to express,
// orders the columns and the files, and names the key columns.
func (p *plan) finish() error {
	nodeProps, relProps := map[string]bool{}, map[string]bool{}
	for _, gs := range [][]*group{p.nodes, p.rels} {
		for _, g := range gs {
			for _, l := range g.labels {
				if l == "" || strings.Contains(l, ":") || strings.TrimSpace(l) != l {
					return errs.NotSupported("the label %q cannot be named in the import layout (a `:` separates labels; names are trimmed)", l)
				}
			}
			if len(g.mixed) > 0 {
				return errs.Internal("%s: a file's column holds two types after the split", g.what())
			}
			if g.rels && (g.name == "" || strings.Contains(g.name, ":") || strings.TrimSpace(g.name) != g.name) {
				return errs.NotSupported("the relationship type %q cannot be named in the import layout", g.name)
			}
			sort.Slice(g.cols, func(i, j int) bool { return g.cols[i].name < g.cols[j].name })
			for i := range g.cols {
				c := &g.cols[i]
				g.colOf[c.key] = i
				if why := c.settle(); why != "" {
					return errs.NotSupported("%s: property %s holds %s", g.what(), c.name, why)
				}
				if g.rels {
					relProps[c.name] = true
				} else {
					nodeProps[c.name] = true
				}
			}
		}
	}
	sort.SliceStable(p.nodes, func(i, j int) bool { return p.nodes[i].name < p.nodes[j].name })
	sort.SliceStable(p.rels, func(i, j int) bool { return p.rels[i].name < p.rels[j].name })
	free := func(used map[string]bool, name string) string {
		for used[name] {
			name = "_" + name
		}
		return name
	}
	p.idCol = free(nodeProps, "_id")
	p.fromCol, p.toCol = free(relProps, "_from"), free(relProps, "_to")
	return nil
}

// eachRel calls fn for every relationship of snap, type by type and, in
// a type, by start node through the forward adjacency (whose blocks
// decode in order, where looking up each id in the relationship table
// would decode a block per relationship). tick is told every 4,096
// relationships, stop polled as often.
func eachRel(snap *storage.Snapshot, cat *catalog.Catalog, stop func() error, tick func(int64), fn func(t catalog.TypeID, id, src, dst uint64) error) error {
	var nbrs, rels []uint64
	seen := int64(0)
	for _, t := range cat.Types() {
		adj := snap.Adjacency(t, storage.Outgoing)
		if adj == nil {
			continue
		}
		for node := uint64(0); node < uint64(adj.NumNodes()); node++ {
			if adj.Degree(node) == 0 {
				continue
			}
			nbrs, rels = adj.AppendNeighbors(nbrs[:0], rels[:0], node)
			for i, r := range rels {
				if seen++; seen%4096 == 0 {
					if err := stop(); err != nil {
						return err
					}
					tick(4096)
				}
				if err := fn(t, r, node, nbrs[i]); err != nil {
					return err
				}
			}
		}
	}
	tick(seen % 4096)
	return nil
}
