package storage

import (
	"strings"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// The write boundary of field-level encryption (engine/fle,
// docs/encryption.md). A Sealer installed on the store sees every
// property value written to a node before it becomes an op, so the
// working version, the WAL, the change feed, replication and every
// checkpoint hold only what it returns: the values of encrypted fields
// sealed. Which fields are encrypted (and under which keys) is itself in
// the system records under SealRecordPrefix, read from the writing version: a declaration
// and the rewrite of the values it covers commit together, and a write
// made after it (in the same transaction or a later one) is sealed.
//
// An optimistic transaction whose snapshot predates a declaration (or
// its removal, or a key change) committed since fails with 40001
// (rebase): what it wrote was sealed under the old declarations.

// SealRecordPrefix is the system-record prefix of field-level
// encryption's keys and field declarations: a commit writing a record
// under it changes the version's seal epoch.
const SealRecordPrefix = "fle/"

// Sealer seals the values of encrypted properties.
type Sealer interface {
	// SealNode returns vals with the values that labels make encrypted
	// sealed (keys[i] = vals[i]); it returns vals itself when nothing
	// changes and must not modify it. v is the writing version: its
	// system records hold the declarations, and v.SealEpoch names them.
	SealNode(v *Snapshot, labels []catalog.LabelID, keys []catalog.KeyID, vals []vector.Value) ([]vector.Value, error)
}

type sealerBox struct{ s Sealer }

// SetSealer installs the sealer of the store's writes (nil: none).
func (s *Store) SetSealer(sl Sealer) {
	if sl == nil {
		s.sealer.Store(nil)
		return
	}
	s.sealer.Store(&sealerBox{sl})
}

func (s *Store) currentSealer() Sealer {
	if b := s.sealer.Load(); b != nil {
		return b.s
	}
	return nil
}

// SealEpoch identifies the field-level encryption records of the
// version: it changes with every commit that writes a record under
// SealRecordPrefix, and is 0 when none was ever written.
func (s *Snapshot) SealEpoch() uint64 { return s.sealEpoch }

// sealEpochs hands out seal epochs, unique in the process.
var sealEpochs atomic.Uint64

// noteSealRecord moves the working version's seal epoch when op declares
// or drops an encrypted field.
func (w *work) noteSealRecord(op *Op) {
	if strings.HasPrefix(op.Name, SealRecordPrefix) {
		w.v.sealEpoch = sealEpochs.Add(1)
	}
}

// noteLoadedSealRecords gives a version read from a base its seal epoch
// when its system records hold field declarations.
func (s *Snapshot) noteLoadedSealRecords() {
	found := false
	s.SystemScan(SealRecordPrefix, func(string, []byte) { found = true })
	if found {
		s.sealEpoch = sealEpochs.Add(1)
	}
}

// sealNode runs the sealer on the properties written to node id (labels
// nil: read the node's labels from the working version).
func (tx *Tx) sealNode(w *work, id uint64, labels []catalog.LabelID, keys []catalog.KeyID, vals []vector.Value) ([]vector.Value, error) {
	sl := tx.s.currentSealer()
	if sl == nil || len(keys) == 0 || !w.v.hasSealRecords() {
		return vals, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if labels == nil {
		labels = w.v.AppendNodeLabels(nil, id)
	}
	return sl.SealNode(&w.v, labels, keys, vals)
}

// hasSealRecords: whether any field declaration was ever written (the
// sealer's cost is then nothing for every other database).
func (s *Snapshot) hasSealRecords() bool { return s.sealEpoch != 0 }

// resealAfterLabels seals the properties of node id that labels it just
// gained make encrypted: one more op, after the label change.
func (tx *Tx) resealAfterLabels(w *work, id uint64) error {
	sl := tx.s.currentSealer()
	if sl == nil || !w.v.hasSealRecords() {
		return nil
	}
	var keys []catalog.KeyID
	var vals []vector.Value
	w.mu.Lock()
	w.v.NodeProps(id, func(k catalog.KeyID, v vector.Value) {
		keys, vals = append(keys, k), append(vals, v)
	})
	labels := w.v.AppendNodeLabels(nil, id)
	sealed, err := sl.SealNode(&w.v, labels, keys, vals)
	w.mu.Unlock()
	if err != nil || len(keys) == 0 {
		return err
	}
	var ck []catalog.KeyID
	var cv []vector.Value
	for i := range keys {
		if sealedNow(sealed[i], vals[i]) {
			ck, cv = append(ck, keys[i]), append(cv, sealed[i])
		}
	}
	if len(ck) > 0 {
		tx.log(w, Op{Kind: OpSetNodeProps, ID: id, Keys: ck, Vals: cv})
	}
	return nil
}

// sealedNow: the sealer changed the value (it only ever turns a value
// into a sealed string).
func sealedNow(sealed, was vector.Value) bool {
	s, ok := sealed.(string)
	if !ok {
		return false
	}
	w, ok := was.(string)
	return !ok || w != s
}
