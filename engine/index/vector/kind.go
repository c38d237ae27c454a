package vectorindex

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/index"
)

// Bounds of CREATE VECTOR INDEX's OPTIONS (docs/search.md).
const (
	MaxDimensions     = 4096
	MaxM              = 512
	MaxEfConstruction = 4096
)

// Kind is the VECTOR index kind of the secondary-index framework
// (engine/index): one HNSW Index per VECTOR index, kept in memory,
// populated in the background and rebuilt at open, kept from commits
// (apply.go) and searched at a transaction's snapshot (search_tx.go).
type Kind struct{}

// Check vets def's options: a user error (22023) for a missing or bad
// dimension, an unknown similarity, m or ef_construction out of range, or
// anything but one node property.
func (Kind) Check(def *catalog.Index) error {
	_, err := configOf(def)
	return err
}

// configOf is def's HNSW configuration.
func configOf(def *catalog.Index) (Config, error) {
	bad := func(format string, args ...any) (Config, error) {
		return Config{}, errs.DataCode(errs.CodeInvalidParam, "VECTOR index %s: "+format, append([]any{def.Name}, args...)...)
	}
	o := def.Vector
	switch {
	case def.Rel:
		return bad("relationship vector indexes are not supported: index a node label")
	case len(def.Keys) != 1:
		return bad("a VECTOR index covers exactly one property, not %d", len(def.Keys))
	case o == nil || o.Dimensions == 0:
		return bad("OPTIONS must give dimensions (1 to %d)", MaxDimensions)
	case o.Dimensions < 1 || o.Dimensions > MaxDimensions:
		return bad("dimensions must be from 1 to %d, not %d", MaxDimensions, o.Dimensions)
	case o.M != 0 && (o.M < 2 || o.M > MaxM):
		return bad("m must be from 2 to %d, not %d", MaxM, o.M)
	case o.EfConstruction != 0 && (o.EfConstruction < 1 || o.EfConstruction > MaxEfConstruction):
		return bad("ef_construction must be from 1 to %d, not %d", MaxEfConstruction, o.EfConstruction)
	}
	m := Cosine
	if o.Similarity != "" {
		var err error
		if m, err = ParseMetric(o.Similarity); err != nil {
			return bad("unknown similarity %q: use 'cosine', 'euclidean' or 'dot'", o.Similarity)
		}
	}
	return Config{Dim: o.Dimensions, Metric: m, M: o.M, EfConstruction: o.EfConstruction}.withDefaults()
}

// New returns an empty VECTOR index for def.
func (Kind) New(def *catalog.Index, cat *catalog.Catalog) (index.Index, error) {
	cfg, err := configOf(def)
	if err != nil {
		return nil, err
	}
	return newManaged(def, cat, cfg)
}
