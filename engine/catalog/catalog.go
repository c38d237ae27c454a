package catalog

// LabelID is the dense id of a node label.
type LabelID uint32

// TypeID is the dense id of a relationship type.
type TypeID uint32

// KeyID is the dense id of a property key (shared by nodes and
// relationships).
type KeyID uint32

// Catalog maps names to dense ids. It is safe for concurrent use; reads
// never block.
type Catalog struct {
	labels *names
	types  *names
	keys   *names
	// Indexes and constraints are a Schema (schema.go), versioned with
	// the data in storage snapshots rather than held here.
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{
		labels: newNames("label"),
		types:  newNames("relationship type"),
		keys:   newNames("property key"),
	}
}

// LookupLabel returns the id of label name, if it exists.
func (c *Catalog) LookupLabel(name string) (LabelID, bool) {
	id, ok := c.labels.lookup(name)
	return LabelID(id), ok
}

// EnsureLabel returns the id of label name, creating it if needed.
func (c *Catalog) EnsureLabel(name string) LabelID { return LabelID(c.labels.ensure(name)) }

// LabelName returns the name of label id ("" if it does not exist).
func (c *Catalog) LabelName(id LabelID) string { return c.labels.name(uint32(id)) }

// Labels lists every label id in id order.
func (c *Catalog) Labels() []LabelID { return listIDs[LabelID](c.labels.count()) }

// NumLabels is the number of labels; every LabelID is below it.
func (c *Catalog) NumLabels() int { return c.labels.count() }

// LookupType returns the id of relationship type name, if it exists.
func (c *Catalog) LookupType(name string) (TypeID, bool) {
	id, ok := c.types.lookup(name)
	return TypeID(id), ok
}

// EnsureType returns the id of relationship type name, creating it if
// needed.
func (c *Catalog) EnsureType(name string) TypeID { return TypeID(c.types.ensure(name)) }

// TypeName returns the name of relationship type id ("" if it does not
// exist).
func (c *Catalog) TypeName(id TypeID) string { return c.types.name(uint32(id)) }

// Types lists every relationship type id in id order.
func (c *Catalog) Types() []TypeID { return listIDs[TypeID](c.types.count()) }

// NumTypes is the number of relationship types; every TypeID is below it.
func (c *Catalog) NumTypes() int { return c.types.count() }

// LookupKey returns the id of property key name, if it exists.
func (c *Catalog) LookupKey(name string) (KeyID, bool) {
	id, ok := c.keys.lookup(name)
	return KeyID(id), ok
}

// EnsureKey returns the id of property key name, creating it if needed.
func (c *Catalog) EnsureKey(name string) KeyID { return KeyID(c.keys.ensure(name)) }

// KeyName returns the name of property key id ("" if it does not exist).
func (c *Catalog) KeyName(id KeyID) string { return c.keys.name(uint32(id)) }

// Keys lists every property key id in id order.
func (c *Catalog) Keys() []KeyID { return listIDs[KeyID](c.keys.count()) }

// NumKeys is the number of property keys; every KeyID is below it.
func (c *Catalog) NumKeys() int { return c.keys.count() }

func listIDs[T ~uint32](n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(i)
	}
	return out
}

// Truncate forgets the labels, relationship types and property keys
// from the given counts on. Names are otherwise append-only; only a
// member of a replicated cluster calls it, for names that commits it
// proposed and the cluster dropped alone registered, so that the
// leader's log can register other names at those ids
// (storage/replicated.go). A statement that looked up a forgotten name
// before keeps its id; its commit fails (the version it built on is
// gone).
func (c *Catalog) Truncate(labels, types, keys int) {
	c.labels.truncate(labels)
	c.types.truncate(types)
	c.keys.truncate(keys)
}
