package exec

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/expr"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// updateOp runs SET and REMOVE: it applies its items to every input row
// through the statement's transaction and passes the rows on.
type updateOp struct {
	c  *Context
	in Operator
	u  *updater
}

func newUpdate(c *Context, p *plan.Update, in Operator) (*updateOp, error) {
	u, err := newUpdater(c, p.Items)
	if err != nil {
		return nil, err
	}
	return &updateOp{c: c, in: in, u: u}, nil
}

func (o *updateOp) Next() (*vector.Batch, error) {
	b, err := o.in.Next()
	if err != nil || b == nil {
		return nil, err
	}
	if err := o.c.CheckCancel(); err != nil {
		return nil, err
	}
	if err := o.u.apply(b); err != nil {
		return nil, err
	}
	return b, nil
}

// updater applies SET/REMOVE items to the rows of a batch. Items run one
// after the other over the whole batch, so an item's expressions see the
// writes of the items before it (SET n.a = 1, n.b = n.a + 1 sets b to 2).
type updater struct {
	c     *Context
	items []plan.UpdateItem
	ents  []expr.Evaluator
	vals  []expr.Evaluator // nil for items without a value

	keys []catalog.KeyID
	vs   []vector.Value
}

func newUpdater(c *Context, items []plan.UpdateItem) (*updater, error) {
	u := &updater{c: c, items: items}
	for _, it := range items {
		ent, err := compile(c, it.Entity)
		if err != nil {
			return nil, err
		}
		var val expr.Evaluator
		if it.Value != nil {
			if val, err = compile(c, it.Value); err != nil {
				return nil, err
			}
		}
		u.ents, u.vals = append(u.ents, ent), append(u.vals, val)
	}
	return u, nil
}

func (u *updater) apply(b *vector.Batch) error {
	for i := range u.items {
		it := &u.items[i]
		ents, err := u.ents[i].Eval(b)
		if err != nil {
			return err
		}
		var vals *vector.Vector
		if u.vals[i] != nil {
			if vals, err = u.vals[i].Eval(b); err != nil {
				return err
			}
		}
		for j := 0; j < b.Rows(); j++ {
			r := b.Row(j)
			ent := ents.Get(r)
			if ent == nil {
				continue // SET on null (an unmatched OPTIONAL MATCH) does nothing
			}
			var v vector.Value
			if vals != nil {
				v = vals.Get(r)
			}
			if err := u.applyOne(it, ent, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyOne applies one item to one entity.
func (u *updater) applyOne(it *plan.UpdateItem, ent, v vector.Value) error {
	c := u.c
	if err := c.CheckDeletedValue(ent); err != nil {
		return err
	}
	id, isNode, err := entityID(ent)
	if err != nil {
		return err
	}
	c.noteUpdated(id, isNode)
	switch it.Kind {
	case plan.SetLabels, plan.RemoveLabels:
		if !isNode {
			return errs.Data("labels can only be changed on nodes")
		}
		return u.labels(it, id)
	case plan.SetProp:
		if err := checkPropertyValue(it.Key, v); err != nil {
			return err
		}
		return u.write(id, isNode, []string{it.Key}, []vector.Value{v}, false)
	case plan.RemoveProp:
		return u.write(id, isNode, []string{it.Key}, []vector.Value{nil}, false)
	case plan.SetAll, plan.SetMerge:
		m, err := u.propertyMap(v)
		if err != nil {
			return err
		}
		keys := make([]string, 0, len(m))
		vals := make([]vector.Value, 0, len(m))
		for k, x := range m {
			if err := checkPropertyValue(k, x); err != nil {
				return err
			}
			keys, vals = append(keys, k), append(vals, x)
		}
		return u.write(id, isNode, keys, vals, it.Kind == plan.SetAll)
	}
	return bug("unknown update kind %d", it.Kind)
}

// entityID takes a node or relationship value apart.
func entityID(v vector.Value) (uint64, bool, error) {
	switch x := v.(type) {
	case vector.NodeRef:
		return uint64(x), true, nil
	case vector.RelRef:
		return uint64(x), false, nil
	}
	return 0, false, errs.Data("only nodes and relationships can be updated, not a %s", functions.TypeName(v))
}

// propertyMap is the map SET e = v / SET e += v takes its properties from:
// a map, or the properties of a node or relationship; null is the empty
// map.
func (u *updater) propertyMap(v vector.Value) (map[string]vector.Value, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case map[string]vector.Value:
		return x, nil
	case vector.NodeRef, vector.RelRef:
		m := map[string]vector.Value{}
		if _, err := expr.EntityProps(&u.c.Env, x, func(k catalog.KeyID, val vector.Value) { m[u.c.Catalog.KeyName(k)] = val }); err != nil {
			return nil, err
		}
		return m, nil
	}
	return nil, errs.Data("SET expects a map of properties, got a %s", functions.TypeName(v))
}

// checkPropertyValue enforces Cypher's property types: a property holds a
// scalar or a list of scalars, never a map, an entity or nested lists.
func checkPropertyValue(key string, v vector.Value) error {
	switch x := v.(type) {
	case map[string]vector.Value:
		return errs.Data("property %q cannot hold a map", key)
	case vector.NodeRef, vector.RelRef, vector.Path, *vector.Path:
		return errs.Data("property %q cannot hold a %s", key, functions.TypeName(v))
	case []vector.Value:
		for _, e := range x {
			switch e.(type) {
			case map[string]vector.Value, []vector.Value, vector.NodeRef, vector.RelRef, vector.Path, *vector.Path:
				return errs.Data("property %q cannot hold a list of %s values", key, functions.TypeName(e))
			}
		}
	}
	return nil
}

// write sets keys to vals on the entity (nil removes); with replace, every
// other property is removed. It counts properties set and removed.
func (u *updater) write(id uint64, isNode bool, keys []string, vals []vector.Value, replace bool) error {
	c := u.c
	// Which keys the entity had: all of them when the map replaces its
	// properties, else only the keys written (reading every key of the
	// catalog per item made a statement of many SET items quadratic).
	old := map[catalog.KeyID]bool{}
	if replace {
		visit := func(k catalog.KeyID, _ vector.Value) { old[k] = true }
		if isNode {
			c.Tx.NodeProps(id, visit)
		} else {
			c.Tx.RelProps(id, visit)
		}
	}
	had := func(k catalog.KeyID) bool {
		if replace {
			return old[k]
		}
		if isNode {
			return c.Tx.NodeProp(id, k) != nil
		}
		return c.Tx.RelProp(id, k) != nil
	}
	u.keys, u.vs = u.keys[:0], u.vs[:0]
	given := map[catalog.KeyID]bool{}
	for i, name := range keys {
		var k catalog.KeyID
		if vals[i] == nil {
			var ok bool
			if k, ok = c.Catalog.LookupKey(name); !ok {
				continue // removing a key nobody has
			}
		} else {
			k = c.Catalog.EnsureKey(name)
		}
		given[k] = true
		u.keys, u.vs = append(u.keys, k), append(u.vs, vals[i])
	}
	if replace {
		for k := range old {
			if !given[k] {
				u.keys, u.vs = append(u.keys, k), append(u.vs, nil)
			}
		}
	}
	for i, k := range u.keys {
		switch {
		case u.vs[i] != nil:
			c.Counters.PropertiesSet++
		case had(k):
			c.Counters.PropertiesRemoved++
		}
	}
	if isNode {
		return c.Tx.SetNodeProps(id, u.keys, u.vs)
	}
	return c.Tx.SetRelProps(id, u.keys, u.vs)
}

// labels adds or removes an item's labels on node id.
func (u *updater) labels(it *plan.UpdateItem, id uint64) error {
	c := u.c
	var ls []catalog.LabelID
	for _, name := range it.Labels {
		if it.Kind == plan.SetLabels {
			ls = append(ls, c.Catalog.EnsureLabel(name))
		} else if l, ok := c.Catalog.LookupLabel(name); ok {
			ls = append(ls, l)
		}
	}
	if it.Kind == plan.SetLabels {
		n, err := c.Tx.AddLabels(id, ls)
		c.Counters.LabelsAdded += int64(n)
		return err
	}
	n, err := c.Tx.RemoveLabels(id, ls)
	c.Counters.LabelsRemoved += int64(n)
	return err
}
