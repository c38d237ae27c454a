package catalog

import (
	"strings"
)

// IndexType is the structure an index keeps its entries in.
type IndexType uint8

const (
	// BTree keeps entries ordered by key: equality, ranges, STARTS WITH.
	BTree IndexType = iota + 1
	// Hash keeps entries in a hash map: equality only.
	Hash
	// FullText is a text search index (engine/index/fulltext): not kept
	// by storage's index table but by the engine's secondary-index
	// manager (engine/index), from commits.
	FullText
	// Vector is a nearest-neighbour index over one property's vectors
	// (engine/index/vector, HNSW): a secondary index like FullText.
	Vector
)

func (t IndexType) String() string {
	switch t {
	case Hash:
		return "HASH"
	case FullText:
		return "FULLTEXT"
	case Vector:
		return "VECTOR"
	}
	return "BTREE"
}

// Secondary reports whether indexes of type t are kept outside storage's
// property index table (engine/index): storage records their definition
// in the schema and logs it, and nothing else.
func (t IndexType) Secondary() bool { return t == FullText || t == Vector }

// ConstraintKind is what a constraint asserts.
type ConstraintKind uint8

const (
	// Unique: no two nodes with the label share the property's value.
	Unique ConstraintKind = iota + 1
	// Exists: every node with the label has the property.
	Exists
)

func (k ConstraintKind) String() string {
	if k == Exists {
		return "EXISTS"
	}
	return "UNIQUE"
}

// Index describes one node property index. Indexes are schema objects:
// they live in a Schema, which is versioned with the data (each storage
// snapshot holds the Schema it was committed with), so a query sees
// exactly the indexes of its snapshot.
type Index struct {
	Name  string
	Type  IndexType
	Label string
	Keys  []string // property keys, in key order; composite when > 1
	// Slot is the position of the index's entries in a snapshot's index
	// table; stable for the index's lifetime.
	Slot int
	// Constraint names the UNIQUE constraint that created the index and
	// owns it ("" for an index created by CREATE INDEX).
	Constraint string
	// Rel says Label is a relationship type: the index covers
	// relationships (secondary indexes only).
	Rel bool `json:",omitempty"`
	// Analyzer is a FULLTEXT index's text analyzer ("" is standard).
	Analyzer string `json:",omitempty"`
	// Vector is a VECTOR index's options (nil for the other types).
	Vector *VectorOptions `json:",omitempty"`
}

// VectorOptions are a VECTOR index's OPTIONS as CREATE VECTOR INDEX gave
// them; zero M and EfConstruction mean the index's defaults, and the
// index (engine/index/vector) vets them.
type VectorOptions struct {
	Dimensions     int
	Similarity     string // cosine, euclidean or dot; "" is cosine
	M              int
	EfConstruction int
}

// Properties renders Keys as SHOW INDEXES does: comma-separated.
func (ix *Index) Properties() string { return strings.Join(ix.Keys, ",") }

// Constraint describes one node property constraint.
type Constraint struct {
	Name  string
	Kind  ConstraintKind
	Label string
	Key   string
	// Index names the index a UNIQUE constraint checks through.
	Index string
}

// Schema is an immutable set of indexes and constraints, in creation
// order.
// Changing it makes a new Schema (With*, Without*), so a snapshot's
// Schema never changes under a reader.
type Schema struct {
	Indexes     []*Index
	Constraints []*Constraint
}

// Index returns the index named name, nil when none.
func (s *Schema) Index(name string) *Index {
	if s == nil {
		return nil
	}
	for _, ix := range s.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// Constraint returns the constraint named name, nil when none.
func (s *Schema) Constraint(name string) *Constraint {
	if s == nil {
		return nil
	}
	for _, c := range s.Constraints {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ConstraintThrough returns a constraint that checks through the index
// named name, nil when none.
func (s *Schema) ConstraintThrough(name string) *Constraint {
	if s == nil {
		return nil
	}
	for _, c := range s.Constraints {
		if c.Kind == Unique && c.Index == name {
			return c
		}
	}
	return nil
}

// IndexOn returns an index on label whose keys are exactly keys, nil when
// none.
func (s *Schema) IndexOn(label string, keys []string) *Index {
	if s == nil {
		return nil
	}
	for _, ix := range s.Indexes {
		if !ix.Type.Secondary() && ix.Label == label && strings.Join(ix.Keys, "\x00") == strings.Join(keys, "\x00") {
			return ix
		}
	}
	return nil
}

// WithIndex returns a copy of s with ix added.
func (s *Schema) WithIndex(ix *Index) *Schema {
	n := s.clone()
	n.Indexes = append(n.Indexes, ix)
	return n
}

// WithoutIndex returns a copy of s without the index named name.
func (s *Schema) WithoutIndex(name string) *Schema {
	n := s.clone()
	n.Indexes = n.Indexes[:0]
	for _, ix := range s.Indexes {
		if ix.Name != name {
			n.Indexes = append(n.Indexes, ix)
		}
	}
	return n
}

// WithConstraint returns a copy of s with c added.
func (s *Schema) WithConstraint(c *Constraint) *Schema {
	n := s.clone()
	n.Constraints = append(n.Constraints, c)
	return n
}

// WithConstraintReplaced returns a copy of s in which c takes the place
// of the constraint of the same name.
func (s *Schema) WithConstraintReplaced(c *Constraint) *Schema {
	n := s.clone()
	for i, o := range n.Constraints {
		if o.Name == c.Name {
			n.Constraints[i] = c
		}
	}
	return n
}

// WithoutConstraint returns a copy of s without the constraint named name.
func (s *Schema) WithoutConstraint(name string) *Schema {
	n := s.clone()
	n.Constraints = n.Constraints[:0]
	for _, c := range s.Constraints {
		if c.Name != name {
			n.Constraints = append(n.Constraints, c)
		}
	}
	return n
}

func (s *Schema) clone() *Schema {
	if s == nil {
		return &Schema{}
	}
	return &Schema{
		Indexes:     append([]*Index(nil), s.Indexes...),
		Constraints: append([]*Constraint(nil), s.Constraints...),
	}
}

// IndexName is the name an index gets when CREATE INDEX names none:
// index_<label>_<key>[_<key>…], lower-cased.
func IndexName(label string, keys []string) string {
	return strings.ToLower("index_" + label + "_" + strings.Join(keys, "_"))
}

// ConstraintName is the name a constraint gets when none is given:
// constraint_<label>_<key>_<kind>, lower-cased.
func ConstraintName(kind ConstraintKind, label, key string) string {
	return strings.ToLower("constraint_" + label + "_" + key + "_" + kind.String())
}
