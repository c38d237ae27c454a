package engine

import (
	"github.com/quiverdb/quiver/engine/access"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/storage/vfs/cryptfs"
	"github.com/quiverdb/quiver/vector"
)

// The tde procedures (docs/encryption.md), admin only and audited:
//
//	tde.status()          state, algorithm, key id, generation, files encrypted and pending
//	tde.rotateMasterKey() re-reads the master key's source and re-wraps the keyring
//	tde.reencrypt()       a new generation; files rewritten in the background
func (db *DB) registerTDE(t *tde) error {
	db.tde = t
	str := func(n string) procs.Field { return procs.Field{Name: n, Type: "STRING"} }
	num := func(n string) procs.Field { return procs.Field{Name: n, Type: "INTEGER"} }
	for _, p := range []*procs.Procedure{
		{Signature: procs.Signature{Name: "tde.status", Requires: procs.PrivAdmin, Outputs: []procs.Field{
			str("state"), str("algorithm"), str("keyId"), num("generation"), num("filesEncrypted"), num("filesPending"), num("filesRewritten")}},
			Fn: db.tdeStatus},
		{Signature: procs.Signature{Name: "tde.rotateMasterKey", Requires: procs.PrivAdmin, Outputs: []procs.Field{str("previousKeyId"), str("keyId")}},
			Fn: db.tdeRotate},
		{Signature: procs.Signature{Name: "tde.reencrypt", Requires: procs.PrivAdmin, Outputs: []procs.Field{num("generation"), num("filesPending")}},
			Fn: db.tdeReencrypt},
	} {
		if err := db.procs.Register(p); err != nil {
			return err
		}
	}
	return nil
}

func (db *DB) tdeOff(name string) error {
	return errs.DataCode(errs.CodeNotSupported, "%s: %v", name, errEncryptionOff)
}

func (db *DB) tdeStatus(c *procs.Context, args []vector.Value) ([][]vector.Value, error) {
	rows, err := db.tdeStatusRows()
	db.trail().Audit(c.Ctx, access.AuditEvent{Category: "admin", Action: "tde_status", Outcome: access.OutcomeOf(err)})
	return rows, err
}

func (db *DB) tdeStatusRows() ([][]vector.Value, error) {
	t := db.tde
	if t == nil {
		return [][]vector.Value{{"off", nil, nil, nil, int64(0), int64(0), int64(0)}}, nil
	}
	enc, pending, err := t.files()
	if err != nil {
		return nil, err
	}
	gen, _ := t.ring.Current()
	state := "encrypted"
	t.mu.Lock()
	if t.running {
		state = "reencrypting"
	}
	t.mu.Unlock()
	return [][]vector.Value{{state, cryptfs.Algorithm, t.ring.KeyID(), int64(gen), int64(enc), int64(pending), t.rewritten.Load()}}, nil
}

func (db *DB) tdeRotate(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
	t := db.tde
	if t == nil {
		err := db.tdeOff("tde.rotateMasterKey")
		db.trail().Audit(c.Ctx, access.AuditEvent{Category: "admin", Action: "tde_rotate_master_key", Outcome: access.OutcomeFailure})
		return nil, err
	}
	old, cur, err := t.rotate()
	db.trail().Audit(c.Ctx, access.AuditEvent{Category: "admin", Action: "tde_rotate_master_key", Outcome: access.OutcomeOf(err), Detail: "key id " + old + " -> " + cur})
	if err != nil {
		return nil, errs.Wrap(errs.CodeInvalidParam, errs.CatData, err, "tde.rotateMasterKey")
	}
	return [][]vector.Value{{old, cur}}, nil
}

func (db *DB) tdeReencrypt(c *procs.Context, _ []vector.Value) ([][]vector.Value, error) {
	t := db.tde
	if t == nil {
		err := db.tdeOff("tde.reencrypt")
		db.trail().Audit(c.Ctx, access.AuditEvent{Category: "admin", Action: "tde_reencrypt", Outcome: access.OutcomeFailure})
		return nil, err
	}
	enc, pending, err := t.files()
	pending += enc // every file is under an older generation now
	var gen uint32
	if err == nil {
		gen, err = t.reencrypt()
	}
	db.trail().Audit(c.Ctx, access.AuditEvent{Category: "admin", Action: "tde_reencrypt", Outcome: access.OutcomeOf(err)})
	if err != nil {
		return nil, err
	}
	return [][]vector.Value{{int64(gen), int64(pending)}}, nil
}
