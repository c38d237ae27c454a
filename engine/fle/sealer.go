package fle

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Sealer is the store's write boundary (storage.Sealer): a value written
// to a node's property that one of the node's labels encrypts is sealed
// under that field's key. It holds every key, so a value already sealed
// (rewritten as it was, or copied from a node whose field uses another
// key) is kept when it is that field's, and opened and sealed again
// under the field's key when not.
type Sealer struct {
	Catalog *catalog.Catalog
	// Config returns the config of the writing version.
	Config func(v *storage.Snapshot) *Config
}

var _ storage.Sealer = (*Sealer)(nil)

// SealNode implements storage.Sealer.
func (s *Sealer) SealNode(v *storage.Snapshot, labels []catalog.LabelID, keys []catalog.KeyID, vals []vector.Value) ([]vector.Value, error) {
	cfg := s.Config(v)
	if cfg.Empty() {
		return vals, nil
	}
	if cfg.Broken != nil {
		return nil, brokenError(cfg.Broken)
	}
	var names []string
	out := vals
	for i, k := range keys {
		prop := s.Catalog.KeyName(k)
		if vals[i] == nil || !cfg.Encrypted(prop) {
			continue
		}
		if names == nil {
			names = make([]string, 0, len(labels))
			for _, l := range labels {
				names = append(names, s.Catalog.LabelName(l))
			}
		}
		f := cfg.FieldFor(names, prop)
		if f == nil {
			continue
		}
		sealed, err := sealFor(cfg, f, vals[i])
		if err != nil {
			return nil, err
		}
		if &out[0] == &vals[0] {
			out = append([]vector.Value(nil), vals...)
		}
		out[i] = sealed
	}
	return out, nil
}

// sealFor seals v as field f's value.
func sealFor(cfg *Config, f *FieldRecord, v vector.Value) (vector.Value, error) {
	key := cfg.Keys[f.Key]
	if key == nil || key.Data == nil {
		return nil, errs.Data("cannot write %s.%s: its data key %s is missing", f.Label, f.Property, f.Key)
	}
	if by, ok := SealedBy(v); ok {
		if other := cfg.Keys[by]; other != nil && other.Data != nil {
			if plain, err := other.Data.Open(f.Property, v.(string)); err == nil {
				if by == f.Key {
					return v, nil // already this field's
				}
				v = plain
			}
		}
	}
	s, err := key.Data.Seal(f.Property, v)
	if err != nil {
		return nil, errs.Wrap(errs.CodeData, errs.CatData, err, "cannot seal a value of "+f.Label+"."+f.Property)
	}
	return s, nil
}

func brokenError(err error) error {
	return errs.New(errs.CodePermission, errs.CatPermission,
		"field-level encryption is unavailable: %v (the server log says more)", err)
}
