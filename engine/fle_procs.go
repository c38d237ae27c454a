package engine

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/fle"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// The quiver.fle procedures (docs/encryption.md), admin only, audited,
// each one commit of the graph's system records (and, for
// encryptProperty and decryptProperty, of the values it rewrites):
//
//	createKey(name [, {deterministic}])          a data key, wrapped under the keyring
//	dropKey(name)                                 one no field uses
//	grantKey(key, role) / revokeKey(key, role)    who reads plaintext
//	listKeys()
//	encryptProperty(label, property, key [, {onDenied: 'null'|'error'}])
//	decryptProperty(label, property)
//	listFields()
func (db *DB) registerFLE() error {
	str := func(n string) procs.Field { return procs.Field{Name: n, Type: "STRING"} }
	boolean := func(n string) procs.Field { return procs.Field{Name: n, Type: "BOOLEAN"} }
	list := func(n string) procs.Field { return procs.Field{Name: n, Type: "LIST"} }
	keyOut := []procs.Field{str("name"), boolean("deterministic"), list("roles"), list("fields"), str("created")}
	fieldOut := []procs.Field{str("label"), str("property"), str("key"), boolean("deterministic"), str("onDenied")}
	rewriteOut := []procs.Field{str("label"), str("property"), str("key"), {Name: "rewritten", Type: "INTEGER"}}
	for _, p := range []*procs.Procedure{
		{Signature: procs.Signature{Name: "quiver.fle.createKey", Inputs: []procs.Field{str("name"), {Name: "options", Type: "MAP", Optional: true}},
			Outputs: keyOut, Requires: procs.PrivAdmin}, Fn: db.fleCreateKey},
		{Signature: procs.Signature{Name: "quiver.fle.dropKey", Inputs: []procs.Field{str("name")},
			Outputs: []procs.Field{str("name")}, Requires: procs.PrivAdmin}, Fn: db.fleDropKey},
		{Signature: procs.Signature{Name: "quiver.fle.grantKey", Inputs: []procs.Field{str("key"), str("role")},
			Outputs: keyOut, Requires: procs.PrivAdmin}, Fn: db.fleGrant(true)},
		{Signature: procs.Signature{Name: "quiver.fle.revokeKey", Inputs: []procs.Field{str("key"), str("role")},
			Outputs: keyOut, Requires: procs.PrivAdmin}, Fn: db.fleGrant(false)},
		{Signature: procs.Signature{Name: "quiver.fle.listKeys", Outputs: keyOut, Requires: procs.PrivAdmin}, Fn: db.fleListKeys},
		{Signature: procs.Signature{Name: "quiver.fle.encryptProperty",
			Inputs:  []procs.Field{str("label"), str("property"), str("key"), {Name: "options", Type: "MAP", Optional: true}},
			Outputs: rewriteOut, Requires: procs.PrivAdmin}, Fn: db.fleEncryptProperty},
		{Signature: procs.Signature{Name: "quiver.fle.decryptProperty", Inputs: []procs.Field{str("label"), str("property")},
			Outputs: rewriteOut, Requires: procs.PrivAdmin}, Fn: db.fleDecryptProperty},
		{Signature: procs.Signature{Name: "quiver.fle.listFields", Outputs: fieldOut, Requires: procs.PrivAdmin}, Fn: db.fleListFields},
	} {
		if err := db.procs.Register(p); err != nil {
			return err
		}
	}
	return nil
}

// fleChange runs one change of the graph's field-level encryption in a
// write transaction of its own (which holds the writer lock, so the
// config it is given is the latest), commits it and audits the outcome.
func (db *DB) fleChange(ctx context.Context, action, detail string, fn func(tx *storage.Tx, cfg *fle.Config) error) error {
	err := func() error {
		if access.InExplicitTransaction(ctx) {
			return errs.New(errs.CodeTransaction, errs.CatTransaction,
				"a field-level encryption change commits on its own; run quiver.fle.%s outside a transaction", action)
		}
		if db.opts.Replication != nil {
			return errs.NotSupported("quiver.fle.%s in a cluster: each member's keyring is its own (docs/encryption.md)", action)
		}
		if db.keyring() == nil {
			return errs.DataCode(errs.CodeNotSupported, "quiver.fle.%s: %v", action, errFieldEncryptionOff)
		}
		if err := db.Writable(); err != nil {
			return err
		}
		tx, err := db.store.BeginWriteContext(ctx)
		if err != nil {
			return errs.Wrap(errs.CodeTransaction, errs.CatTransaction, err, "quiver.fle."+action)
		}
		cfg := fle.Load(tx.View(), db.unwrapFieldKey)
		if cfg.Broken != nil {
			tx.Rollback()
			return errs.New(errs.CodePermission, errs.CatPermission, "field-level encryption is unavailable: %v", cfg.Broken)
		}
		if err := fn(tx, cfg); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.Commit(); err != nil {
			return err
		}
		return nil
	}()
	outcome := access.OutcomeSuccess
	if err != nil {
		outcome = access.OutcomeFailure
		if e, ok := errs.As(err); ok {
			detail += ": " + e.Message
		}
	}
	db.trail().Audit(ctx, access.AuditEvent{Category: "security", Action: "fle_" + action, Outcome: outcome, Detail: detail})
	return err
}

func noKey(name string) error {
	return errs.New(errs.CodeNoObject, errs.CatNoObject, "data key %q does not exist", name)
}

func (db *DB) fleCreateKey(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	name, _ := args[0].(string)
	var rec *fle.KeyRecord
	err := db.fleChange(c.Ctx, "createKey", "key "+name, func(tx *storage.Tx, cfg *fle.Config) error {
		if err := fle.ValidKeyName(name); err != nil {
			return err
		}
		det := false
		opts, ok := args[1].(map[string]vector.Value)
		if !ok && args[1] != nil {
			return errs.DataCode(errs.CodeInvalidParam, "quiver.fle.createKey: options must be a map {deterministic: true|false}")
		}
		for k, v := range opts {
			b, ok := v.(bool)
			if k != "deterministic" || !ok {
				return errs.DataCode(errs.CodeInvalidParam, "quiver.fle.createKey: the options are {deterministic: true|false}, not %s", k)
			}
			det = b
		}
		if cfg.Keys[name] != nil {
			return errs.New(errs.CodeObjectExists, errs.CatObjectExists, "data key %q already exists", name)
		}
		raw, err := fle.NewKeyMaterial()
		if err != nil {
			return err
		}
		gen, gk := db.keyring().Current()
		kek, err := fle.DeriveKEK(gk)
		if err != nil {
			return err
		}
		wrapped, err := fle.Wrap(kek, raw, name)
		if err != nil {
			return err
		}
		rec = &fle.KeyRecord{Name: name, Deterministic: det, Gen: gen, Wrapped: wrapped, Roles: []string{},
			Created: time.Now().UTC().Format(time.RFC3339)}
		return tx.SetSystem(fle.KeyRecordKey(name), fle.Encode(rec))
	})
	if err != nil {
		return nil, err
	}
	return [][]vector.Value{keyRow(rec, nil)}, nil
}

func keyRow(rec *fle.KeyRecord, fields []*fle.FieldRecord) []vector.Value {
	roles := make([]vector.Value, len(rec.Roles))
	for i, r := range rec.Roles {
		roles[i] = r
	}
	fs := make([]vector.Value, len(fields))
	for i, f := range fields {
		fs[i] = f.Label + "." + f.Property
	}
	return []vector.Value{rec.Name, rec.Deterministic, roles, fs, rec.Created}
}

func (db *DB) fleDropKey(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	name, _ := args[0].(string)
	err := db.fleChange(c.Ctx, "dropKey", "key "+name, func(tx *storage.Tx, cfg *fle.Config) error {
		if cfg.Keys[name] == nil {
			return noKey(name)
		}
		if used := cfg.UsesKey(name); len(used) > 0 {
			return errs.DataCode(errs.CodeInvalidParam, "data key %q still seals %s.%s: decrypt its fields first (quiver.fle.decryptProperty)",
				name, used[0].Label, used[0].Property)
		}
		return tx.SetSystem(fle.KeyRecordKey(name), nil)
	})
	if err != nil {
		return nil, err
	}
	return [][]vector.Value{{name}}, nil
}

func (db *DB) fleGrant(grant bool) procs.Func {
	action := "revokeKey"
	if grant {
		action = "grantKey"
	}
	return func(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
		name, _ := args[0].(string)
		role, _ := args[1].(string)
		var row []vector.Value
		err := db.fleChange(c.Ctx, action, "key "+name+" role "+role, func(tx *storage.Tx, cfg *fle.Config) error {
			k := cfg.Keys[name]
			if k == nil {
				return noKey(name)
			}
			if !ValidRoleName(role) {
				return errs.DataCode(errs.CodeInvalidParam, "quiver.fle.%s: invalid role name %q", action, role)
			}
			rec := *k.Rec
			rec.Roles = slices.DeleteFunc(slices.Clone(rec.Roles), func(r string) bool { return strings.EqualFold(r, role) })
			if grant {
				rec.Roles = append(rec.Roles, role)
				slices.Sort(rec.Roles)
			}
			row = keyRow(&rec, cfg.UsesKey(name))
			return tx.SetSystem(fle.KeyRecordKey(name), fle.Encode(&rec))
		})
		if err != nil {
			return nil, err
		}
		return [][]vector.Value{row}, nil
	}
}

func (db *DB) fleListKeys(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
	cfg := fle.Load(db.store.Snapshot(), db.unwrapFieldKey)
	db.trail().Audit(c.Ctx, access.AuditEvent{Category: "security", Action: "fle_listKeys", Outcome: access.OutcomeSuccess})
	names := make([]string, 0, len(cfg.Keys))
	for n := range cfg.Keys {
		names = append(names, n)
	}
	slices.Sort(names)
	rows := make([][]vector.Value, 0, len(names))
	for _, n := range names {
		rows = append(rows, keyRow(cfg.Keys[n].Rec, cfg.UsesKey(n)))
	}
	return rows, nil
}

func (db *DB) fleListFields(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
	cfg := fle.Load(db.store.Snapshot(), db.unwrapFieldKey)
	db.trail().Audit(c.Ctx, access.AuditEvent{Category: "security", Action: "fle_listFields", Outcome: access.OutcomeSuccess})
	rows := make([][]vector.Value, 0, len(cfg.Fields))
	for _, f := range cfg.Fields {
		det := false
		if k := cfg.Keys[f.Key]; k != nil {
			det = k.Rec.Deterministic
		}
		rows = append(rows, []vector.Value{f.Label, f.Property, f.Key, det, f.OnDenied})
	}
	return rows, nil
}
