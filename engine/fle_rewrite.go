package engine

import (
	"slices"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/fle"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Declaring a field and removing it rewrite the values it covers in the
// same commit as the record: the sealer reads the declarations from the
// writing version, so writing a node's value again seals it (or, once
// the record is gone, stores the plaintext the procedure opened).

// rewriteCheckEvery is how many nodes a rewrite handles between checks
// of its context.
const rewriteCheckEvery = 1024

// fieldArgs reads the label and property arguments.
func fieldArgs(action string, args []vector.Value) (string, string, error) {
	label, _ := args[0].(string)
	prop, _ := args[1].(string)
	if label == "" || prop == "" {
		return "", "", errs.DataCode(errs.CodeInvalidParam, "quiver.fle.%s: label and property must be non-empty strings", action)
	}
	if len(label) > 1024 || len(prop) > 1024 {
		return "", "", errs.DataCode(errs.CodeInvalidParam, "quiver.fle.%s: a label or property name is at most 1024 bytes", action)
	}
	return label, prop, nil
}

func (db *DB) fleEncryptProperty(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	label, prop, argErr := fieldArgs("encryptProperty", args)
	key, _ := args[2].(string)
	var n int64
	err := db.fleChange(c.Ctx, "encryptProperty", "field "+label+"."+prop+" key "+key, func(tx *storage.Tx, cfg *fle.Config) error {
		if argErr != nil {
			return argErr
		}
		onDenied, err := onDeniedOption(args[3])
		if err != nil {
			return err
		}
		if cfg.Keys[key] == nil {
			return noKey(key)
		}
		if f := cfg.Field(label, prop); f != nil {
			return errs.New(errs.CodeObjectExists, errs.CatObjectExists, "%s.%s is already encrypted under key %s", label, prop, f.Key)
		}
		if err := checkFieldSchema(tx, label, prop, cfg.Keys[key].Rec.Deterministic); err != nil {
			return err
		}
		rec := &fle.FieldRecord{Label: label, Property: prop, Key: key, OnDenied: onDenied}
		if err := tx.SetSystem(fle.FieldRecordKey(label, prop), fle.Encode(rec)); err != nil {
			return err
		}
		n, err = db.rewriteField(c, tx, label, prop, nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	return [][]vector.Value{{label, prop, key, n}}, nil
}

func onDeniedOption(v vector.Value) (string, error) {
	if v == nil {
		return fle.DeniedNull, nil
	}
	m, ok := v.(map[string]vector.Value)
	if !ok {
		return "", errs.DataCode(errs.CodeInvalidParam, "quiver.fle.encryptProperty: options must be a map {onDenied: 'null'|'error'}")
	}
	out := fle.DeniedNull
	for k, x := range m {
		s, _ := x.(string)
		if k != "onDenied" || (s != fle.DeniedNull && s != fle.DeniedError) {
			return "", errs.DataCode(errs.CodeInvalidParam, "quiver.fle.encryptProperty: the options are {onDenied: 'null'|'error'}")
		}
		out = s
	}
	return out, nil
}

func (db *DB) fleDecryptProperty(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	label, prop, argErr := fieldArgs("decryptProperty", args)
	var n int64
	var key string
	err := db.fleChange(c.Ctx, "decryptProperty", "field "+label+"."+prop, func(tx *storage.Tx, cfg *fle.Config) error {
		if argErr != nil {
			return argErr
		}
		f := cfg.Field(label, prop)
		if f == nil {
			return errs.New(errs.CodeNoObject, errs.CatNoObject, "%s.%s is not an encrypted field", label, prop)
		}
		key = f.Key
		if err := tx.SetSystem(fle.FieldRecordKey(label, prop), nil); err != nil {
			return err
		}
		var err error
		n, err = db.rewriteField(c, tx, label, prop, cfg)
		return err
	})
	if err != nil {
		return nil, err
	}
	return [][]vector.Value{{label, prop, key, n}}, nil
}

// rewriteField writes prop of every node carrying label again in tx:
// the sealer seals it under the declarations tx now holds. open, when
// set, is the config before the change: sealed values are opened with
// it first (the field is being removed). It returns how many values it
// wrote.
func (db *DB) rewriteField(c *procs.Context, tx *storage.Tx, label, prop string, open *fle.Config) (int64, error) {
	cat := db.store.Catalog()
	lid, ok := cat.LookupLabel(label)
	if !ok {
		return 0, nil // no node carries it yet
	}
	kid, ok := cat.LookupKey(prop)
	if !ok {
		return 0, nil
	}
	nodes := tx.LabelNodes(lid)
	held := int64(nodes.GetCardinality()) * 4 // the ids, as uint32
	if err := c.Mem.Charge(held); err != nil {
		return 0, err
	}
	defer c.Mem.Release(held)
	ids := nodes.ToArray()
	keys := []catalog.KeyID{kid}
	var n int64
	for i, id := range ids {
		if i%rewriteCheckEvery == 0 {
			if err := c.Ctx.Err(); err != nil {
				return n, errs.Wrap(errs.CodeTransaction, errs.CatTransaction, err, "the rewrite of "+label+"."+prop+" stopped; nothing changed")
			}
		}
		v := tx.NodeProp(uint64(id), kid)
		if v == nil {
			continue
		}
		if open != nil {
			if name, sealed := fle.SealedBy(v); sealed {
				k := open.Keys[name]
				if k == nil || k.Data == nil {
					return n, errs.Data("cannot decrypt %s.%s of node %d: its data key %s is missing", label, prop, id, name)
				}
				plain, err := k.Data.Open(prop, v.(string))
				if err != nil {
					return n, errs.Data("cannot decrypt %s.%s of node %d: the stored value does not authenticate", label, prop, id)
				}
				v = plain
			}
		}
		if err := tx.SetNodeProps(uint64(id), keys, []vector.Value{v}); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// checkIndexFields refuses a FULLTEXT or VECTOR index over an encrypted
// field: it would index the sealed strings, and answer nothing.
func (db *DB) checkIndexFields(ix *catalog.Index) error {
	if ix.Rel || !ix.Type.Secondary() {
		return nil
	}
	cfg := db.fleConfig(db.store.Snapshot())
	for _, k := range ix.Keys {
		if f := cfg.Field(ix.Label, k); f != nil {
			return errs.DataCode(errs.CodeNotSupported, "cannot create a %s index on %s.%s: the field is encrypted (docs/encryption.md)", ix.Type, ix.Label, k)
		}
	}
	return nil
}

// checkConstraintFields refuses a uniqueness constraint over a field
// encrypted under a randomized key: equal values are stored as
// different strings, so it could not hold.
func (db *DB) checkConstraintFields(c *catalog.Constraint) error {
	if c.Kind != catalog.Unique {
		return nil
	}
	cfg := db.fleConfig(db.store.Snapshot())
	if f := cfg.Field(c.Label, c.Key); f != nil && !deterministicField(cfg, f) {
		return errs.DataCode(errs.CodeNotSupported, "cannot create a uniqueness constraint on %s.%s: it is encrypted under key %s, which is not deterministic", c.Label, c.Key, f.Key)
	}
	return nil
}

func deterministicField(cfg *fle.Config, f *fle.FieldRecord) bool {
	k := cfg.Keys[f.Key]
	return k != nil && k.Rec.Deterministic
}

// checkFieldSchema refuses to declare a field the schema of tx cannot
// hold encrypted: one a FULLTEXT or VECTOR index covers, or, under a
// randomized key, one a uniqueness constraint covers.
func checkFieldSchema(tx *storage.Tx, label, prop string, det bool) error {
	sc := tx.View().Schema()
	if sc == nil {
		return nil
	}
	for _, ix := range sc.Indexes {
		if ix.Rel || ix.Label != label || !ix.Type.Secondary() || !slices.Contains(ix.Keys, prop) {
			continue
		}
		return errs.DataCode(errs.CodeNotSupported, "cannot encrypt %s.%s: the %s index %s covers it (drop the index first)", label, prop, ix.Type, ix.Name)
	}
	for _, c := range sc.Constraints {
		if !det && c.Kind == catalog.Unique && c.Label == label && c.Key == prop {
			return errs.DataCode(errs.CodeNotSupported, "cannot encrypt %s.%s under a randomized key: the uniqueness constraint %s covers it (use a deterministic key)", label, prop, c.Name)
		}
	}
	return nil
}
