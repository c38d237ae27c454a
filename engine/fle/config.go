package fle

import (
	"fmt"
	"slices"
	"sort"

	"github.com/quiverdb/quiver/engine/storage"
)

// Config is the field-level encryption of a version: its keys and
// encrypted fields. It is read-only once loaded.
type Config struct {
	Epoch  uint64 // the version's storage.Snapshot.SealEpoch
	Keys   map[string]*Key
	Fields []*FieldRecord                     // sorted by label, then property
	byProp map[string][]*FieldRecord          // property → fields, by label
	byKey  map[string]map[string]*FieldRecord // label → property → field
	// Broken is set when a record cannot be read or a key cannot be
	// unwrapped: sealing and opening then fail rather than store or
	// show what they should not.
	Broken error
}

// Key is a data key of the config: its record and, unless Broken says
// otherwise, its unwrapped key.
type Key struct {
	Rec  *KeyRecord
	Data *DataKey
}

// Unwrapper unwraps a key record's data key (the engine holds the
// keyring).
type Unwrapper func(rec *KeyRecord) ([]byte, error)

// Load reads the config of snapshot v.
func Load(v *storage.Snapshot, unwrap Unwrapper) *Config {
	c := &Config{Epoch: v.SealEpoch(), Keys: map[string]*Key{}, byProp: map[string][]*FieldRecord{},
		byKey: map[string]map[string]*FieldRecord{}}
	fail := func(err error) {
		if c.Broken == nil {
			c.Broken = err
		}
	}
	v.SystemScan(KeyPrefix, func(_ string, b []byte) {
		rec, err := DecodeKey(b)
		if err != nil {
			fail(err)
			return
		}
		k := &Key{Rec: rec}
		raw, err := unwrap(rec)
		if err == nil {
			k.Data, err = NewDataKey(rec.Name, raw, rec.Deterministic)
		}
		if err != nil {
			fail(fmt.Errorf("data key %s cannot be unwrapped: %w", rec.Name, err))
		}
		c.Keys[rec.Name] = k
	})
	v.SystemScan(FieldPrefix, func(_ string, b []byte) {
		f, err := DecodeField(b)
		if err != nil {
			fail(err)
			return
		}
		c.Fields = append(c.Fields, f)
	})
	sort.Slice(c.Fields, func(i, j int) bool {
		a, b := c.Fields[i], c.Fields[j]
		return a.Label < b.Label || a.Label == b.Label && a.Property < b.Property
	})
	for _, f := range c.Fields {
		c.byProp[f.Property] = append(c.byProp[f.Property], f)
		m := c.byKey[f.Label]
		if m == nil {
			m = map[string]*FieldRecord{}
			c.byKey[f.Label] = m
		}
		m[f.Property] = f
	}
	return c
}

// Empty reports whether no field is encrypted.
func (c *Config) Empty() bool { return c == nil || len(c.Fields) == 0 && c.Broken == nil }

// Encrypted reports whether property prop is encrypted on some label.
func (c *Config) Encrypted(prop string) bool { return c != nil && len(c.byProp[prop]) > 0 }

// FieldsOf returns the fields of property prop, by label.
func (c *Config) FieldsOf(prop string) []*FieldRecord { return c.byProp[prop] }

// Field returns the field of label.prop; nil when it is not encrypted.
func (c *Config) Field(label, prop string) *FieldRecord {
	if c == nil {
		return nil
	}
	return c.byKey[label][prop]
}

// FieldFor returns the field a node with labels (names) seals prop
// under: the first of its labels, in name order, that encrypts it.
func (c *Config) FieldFor(labels []string, prop string) *FieldRecord {
	var best *FieldRecord
	for _, f := range c.byProp[prop] {
		if slices.Contains(labels, f.Label) && (best == nil || f.Label < best.Label) {
			best = f
		}
	}
	return best
}

// UsesKey lists the fields sealed under key name.
func (c *Config) UsesKey(name string) []*FieldRecord {
	var out []*FieldRecord
	for _, f := range c.Fields {
		if f.Key == name {
			out = append(out, f)
		}
	}
	return out
}

// denies reports whether a principal without key reads property prop of
// a value sealed under key as an error (rather than null): when any
// field of that property under that key says so.
func (c *Config) deniesWithError(prop, key string) bool {
	for _, f := range c.byProp[prop] {
		if f.Key == key && f.OnDenied == DeniedError {
			return true
		}
	}
	return false
}
