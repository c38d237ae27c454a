package storage

import (
	"fmt"

	"github.com/quiverdb/quiver/engine/catalog"
)

// Replaying ops: one path for three uses.
//
//   - Recovery (recovery.go): commit records from the WAL are applied,
//     a run of them onto one working version.
//   - Rebase: an optimistic transaction whose snapshot is older than the
//     latest version replays its ops onto the latest one at commit (and a
//     READ_COMMITTED transaction at each statement).
//   - Savepoints: rolling back to one replays the ops before it onto the
//     transaction's base.
//
// The data ops' apply functions assume validated input (they panic on a
// broken invariant), so replayLocked checks each op against the version
// first: an op that no longer applies is an error (a conflict in a
// rebase, corruption in recovery), never a panic.

// replayLocked validates op against w's working version and applies it.
func (w *work) replayLocked(op *Op) error {
	v := &w.v
	nl, nt, nk := w.cat.NumLabels(), w.cat.NumTypes(), w.cat.NumKeys()
	labelsOK := func() error {
		for _, l := range op.Labels {
			if int(l) >= nl {
				return fmt.Errorf("unknown label id %d", l)
			}
		}
		return nil
	}
	keysOK := func() error {
		if len(op.Keys) != len(op.Vals) {
			return fmt.Errorf("%d keys but %d values", len(op.Keys), len(op.Vals))
		}
		for _, k := range op.Keys {
			if int(k) >= nk {
				return fmt.Errorf("unknown property key id %d", k)
			}
		}
		return nil
	}
	var err error
	switch op.Kind {
	case OpCreateNode:
		switch {
		case op.ID > maxNodeID:
			err = fmt.Errorf("node id %d out of range", op.ID)
		case v.nodeLive(op.ID):
			err = fmt.Errorf("node %d already exists", op.ID)
		}
		err = firstErr(err, labelsOK(), keysOK())
	case OpCreateRel:
		switch {
		case int(op.Type) >= nt:
			err = fmt.Errorf("unknown relationship type id %d", op.Type)
		case !v.nodeLive(op.Src) || !v.nodeLive(op.Dst):
			err = fmt.Errorf("relationship %d: node %d or %d does not exist", op.ID, op.Src, op.Dst)
		case v.relLive(op.ID):
			err = fmt.Errorf("relationship %d already exists", op.ID)
		case op.ID >= 1<<40:
			err = fmt.Errorf("relationship id %d out of range", op.ID)
		}
		err = firstErr(err, keysOK())
	case OpSetNodeProps:
		if !v.nodeLive(op.ID) {
			err = fmt.Errorf("node %d does not exist", op.ID)
		}
		err = firstErr(err, keysOK())
	case OpSetRelProps:
		if !v.relLive(op.ID) {
			err = fmt.Errorf("relationship %d does not exist", op.ID)
		}
		err = firstErr(err, keysOK())
	case OpAddLabels, OpRemoveLabels:
		if !v.nodeLive(op.ID) {
			err = fmt.Errorf("node %d does not exist", op.ID)
		}
		err = firstErr(err, labelsOK())
	case OpDeleteRel:
		if t, src, dst, ok := v.Rel(op.ID); !ok || t != op.Type || src != op.Src || dst != op.Dst {
			err = fmt.Errorf("relationship %d does not exist", op.ID)
		}
	case OpDeleteNode:
		switch {
		case !v.nodeLive(op.ID):
			err = fmt.Errorf("node %d does not exist", op.ID)
		case len(w.nodeRelsLocked(op.ID)) > 0:
			err = fmt.Errorf("node %d has relationships", op.ID)
		}
	case OpCreateIndex, OpDropIndex, OpCreateConstraint, OpDropConstraint:
		if (op.Kind == OpCreateIndex && op.Index == nil) || (op.Kind == OpCreateConstraint && op.Constraint == nil) {
			return fmt.Errorf("schema op without its definition")
		}
		return w.applySchemaLocked(op)
	case OpSetSystem:
		err = CheckSystemRecord(op.Name, op.Value)
	default:
		return fmt.Errorf("unknown op kind %d", op.Kind)
	}
	if err != nil {
		return err
	}
	w.applyLocked(op)
	return nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// replayOps builds a new working version on base holding ops.
func (s *Store) replayOps(base *Snapshot, ops []Op) (*work, error) {
	w := s.newWork(base)
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := range ops {
		if err := w.replayLocked(&ops[i]); err != nil {
			return nil, err
		}
	}
	w.ops = ops
	return w, nil
}

// rebase replays w's ops onto head, the latest version. An op that no
// longer applies is a conflict.
func (s *Store) rebase(w *work, head *Snapshot) (*work, error) {
	if head.sealEpoch != w.base.sealEpoch && writesData(w.ops) {
		return nil, conflictError("an encrypted field was declared or dropped after the transaction's snapshot")
	}
	nw, err := s.replayOps(head, w.ops)
	if err != nil {
		return nil, conflictError("a concurrent transaction changed what this one wrote (%v)", err)
	}
	return nw, nil
}

// SetLSN stamps the latest version with the log position it was made
// durable at (the checkpoint's, at open).
func (s *Store) SetLSN(lsn uint64) {
	v := *s.cur.Load()
	v.lsn = lsn
	s.install(&v)
}

// registerNames registers a record's catalog names at their ids: a name
// already there must match, a new one must get the next id.
func registerNames(cat *catalog.Catalog, t catalogTail) error {
	if len(t.labels)+len(t.types)+len(t.keys) == 0 &&
		t.firstLabel <= cat.NumLabels() && t.firstType <= cat.NumTypes() && t.firstKey <= cat.NumKeys() {
		return nil // most records register nothing: no closures to build
	}
	type part struct {
		kind   string
		first  int
		names  []string
		count  func() int
		name   func(int) string
		ensure func(string) int
	}
	parts := []part{
		{"label", t.firstLabel, t.labels, cat.NumLabels,
			func(i int) string { return cat.LabelName(catalog.LabelID(i)) },
			func(n string) int { return int(cat.EnsureLabel(n)) }},
		{"relationship type", t.firstType, t.types, cat.NumTypes,
			func(i int) string { return cat.TypeName(catalog.TypeID(i)) },
			func(n string) int { return int(cat.EnsureType(n)) }},
		{"property key", t.firstKey, t.keys, cat.NumKeys,
			func(i int) string { return cat.KeyName(catalog.KeyID(i)) },
			func(n string) int { return int(cat.EnsureKey(n)) }},
	}
	for _, p := range parts {
		if p.first > p.count() {
			return fmt.Errorf("%s names start at id %d, but the catalog has only %d", p.kind, p.first, p.count())
		}
		for i, n := range p.names {
			id := p.first + i
			if id < p.count() {
				if got := p.name(id); got != n {
					return fmt.Errorf("%s id %d is %q in the catalog but %q in the log", p.kind, id, got, n)
				}
				continue
			}
			if got := p.ensure(n); got != id {
				return fmt.Errorf("%s %q is id %d in the catalog but %d in the log", p.kind, n, got, id)
			}
		}
	}
	return nil
}

// Savepoint marks the transaction's current position; RollbackTo returns
// to it.
func (tx *Tx) Savepoint() int {
	if tx.w == nil {
		return 0
	}
	return len(tx.w.ops)
}

// RollbackTo discards the writes made after savepoint sp: the ops before
// it are replayed onto the transaction's base (ids the discarded ones
// took stay unused).
func (tx *Tx) RollbackTo(sp int) error {
	if tx.done {
		return errDone
	}
	w := tx.w
	if w == nil || sp >= len(w.ops) {
		return nil
	}
	nw, err := tx.s.replayOps(w.base, append([]Op(nil), w.ops[:sp]...))
	if err != nil {
		return fmt.Errorf("storage: cannot roll back to a savepoint: %w", err)
	}
	tx.w, tx.snap = nw, &nw.v
	return nil
}

// Refresh moves an optimistic transaction to the latest durable version
// (READ_COMMITTED takes a fresh snapshot per statement): its writes so
// far are checked against the commits in between, as at commit, and
// replayed onto it.
func (tx *Tx) Refresh() error {
	if tx.done {
		return errDone
	}
	if !tx.optimistic {
		return nil
	}
	s := tx.s
	latest := s.cur.Load()
	w := tx.w
	if w == nil {
		s.txs.mu.Lock()
		tx.snap = latest
		s.txs.open[tx] = latest.ts
		s.txs.mu.Unlock()
		return nil
	}
	if w.base == latest {
		return nil
	}
	var reads *footprint
	if tx.reads != nil {
		reads = tx.reads.footprint()
	}
	if err := s.hist.validate(w.ops, w.base, latest.ts, reads); err != nil {
		return err
	}
	nw, err := s.rebase(w, latest)
	if err != nil {
		return err
	}
	s.txs.mu.Lock()
	tx.w, tx.snap = nw, &nw.v
	s.txs.open[tx] = latest.ts
	s.txs.mu.Unlock()
	return nil
}

// writesData: ops change the graph (not only system records).
func writesData(ops []Op) bool {
	for i := range ops {
		if ops[i].Kind != OpSetSystem {
			return true
		}
	}
	return false
}
