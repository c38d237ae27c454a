package engine

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/changes"
	"github.com/quiverdb/quiver/engine/fle"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Field-level encryption (docs/encryption.md, engine/fle): the store
// seals encrypted fields at its write boundary (fle.Sealer), every
// statement reads them through an fle.Reader for its principal, the
// binder wraps their reads in decrypt calls (plan/fle.go), and change
// events never carry a value of one that is not sealed (the redactor).

// fleState caches the config of the latest seal epoch read.
type fleState struct {
	cur atomic.Pointer[fle.Config]
}

// fleConfig returns the field-level encryption config of version v; nil
// when no record was ever written (the cost for every other database is
// one comparison).
func (db *DB) fleConfig(v *storage.Snapshot) *fle.Config {
	epoch := v.SealEpoch()
	if epoch == 0 {
		return nil
	}
	if c := db.fle.cur.Load(); c != nil && c.Epoch == epoch {
		return c
	}
	c := fle.Load(v, db.unwrapFieldKey)
	if c.Broken != nil {
		db.log.Error("field-level encryption: a record cannot be read", "err", c.Broken)
	}
	db.fle.cur.Store(c)
	return c
}

// keyring is the data directory's keyring; nil without encryption at
// rest.
func (db *DB) keyring() interface {
	Current() (uint32, []byte)
	Key(uint32) ([]byte, bool)
} {
	if t := db.root.tde; t != nil {
		return t.ring
	}
	return nil
}

// unwrapFieldKey unwraps a data key under the key-encryption key of its
// keyring generation.
func (db *DB) unwrapFieldKey(rec *fle.KeyRecord) ([]byte, error) {
	ring := db.keyring()
	if ring == nil {
		return nil, errFieldEncryptionOff
	}
	gk, ok := ring.Key(rec.Gen)
	if !ok {
		return nil, fmt.Errorf("the keyring has no generation %d", rec.Gen)
	}
	kek, err := fle.DeriveKEK(gk)
	if err != nil {
		return nil, err
	}
	return fle.Unwrap(kek, rec.Wrapped, rec.Name)
}

var errFieldEncryptionOff = fmt.Errorf("field-level encryption needs encryption at rest: its keys are wrapped under the data directory's keyring (start the server with an encryption key)")

// installFieldEncryption puts the sealer on the store and the redactor on
// the change hub.
func (db *DB) installFieldEncryption() {
	cat := db.store.Catalog()
	db.store.SetSealer(&fle.Sealer{Catalog: cat, Config: db.fleConfig})
	db.changes.SetRedactor(func(v *storage.Snapshot, labels []string, props []changes.Property) {
		cfg := db.fleConfig(v)
		if cfg.Empty() {
			return
		}
		for i := range props {
			if _, sealed := fle.SealedBy(props[i].Value); sealed || props[i].Value == nil {
				continue
			}
			if cfg.FieldFor(labels, props[i].Key) != nil {
				props[i].Value = redacted
			}
		}
	})
}

// redacted stands, in a change event, for a value of an encrypted field
// from before the field was declared.
const redacted = "<encrypted>"

// fieldReader returns the reader of ctx's principal over config cfg;
// nil when cfg encrypts nothing.
func fieldReader(ctx context.Context, cfg *fle.Config) *fle.Reader {
	if cfg.Empty() {
		return nil
	}
	p, ok := access.PrincipalFrom(ctx)
	if !ok {
		return fle.NewReader(cfg, nil, true)
	}
	return fle.NewReader(cfg, p.Roles, false)
}

// planFields is what the binder knows of cfg's fields.
func planFields(cfg *fle.Config) plan.EncryptedFields {
	if cfg.Empty() {
		return nil
	}
	out := plan.EncryptedFields{}
	for _, f := range cfg.Fields {
		det := false
		if k := cfg.Keys[f.Key]; k != nil {
			det = k.Rec.Deterministic
		}
		out[f.Property] = append(out[f.Property], plan.EncryptedField{Label: f.Label, Key: f.Key, Deterministic: det})
	}
	return out
}

// openEntityProp is a whole entity's property as the result shows it.
func openEntityProp(r *fle.Reader, key string, v vector.Value, fn func(string, vector.Value)) {
	if r == nil {
		fn(key, v)
		return
	}
	if out, ok := r.OpenEntity(key, v); ok {
		fn(key, out)
	}
}
