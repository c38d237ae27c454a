package storage

import (
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/csr"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Tx is a read-write transaction. Reads see its snapshot plus its own
// writes; others see the writes atomically at Commit.
//
// Until the first write a Tx is a Snapshot pointer and nothing else. The
// first write starts a private working version (work.v) that shares
// everything with the version it starts from; the Tx then copies what it
// writes (a chunk, a group table, a bitmap) once and mutates its copy in
// place, so a transaction creating a million nodes costs the same per
// node as one creating ten.
//
// A Tx is pessimistic or optimistic (commit.go):
//   - Pessimistic (Begin, BeginAt): the first write, or BeginWrite, takes
//     the store's commit lock and moves the Tx to the latest version; it
//     holds the lock until Commit or Rollback, so it never conflicts. A
//     one-statement write uses it: its reads and writes are one step.
//   - Optimistic (BeginOptimistic): writes build on the Tx's own snapshot
//     without any lock; Commit takes the lock only to check the writes
//     against what committed since (first committer wins, 40001) and to
//     replay them onto the latest version. Multi-statement transactions
//     use it, so an open transaction never stalls other writers.
//
// A Tx may be read from several goroutines at once, but not while one of
// them writes. A pessimistic Tx that is neither committed nor rolled back
// holds the commit lock forever; a goroutine must not open a second
// pessimistic write Tx while its first one holds it.
type Tx struct {
	s    *Store
	snap *Snapshot // read view until the first write
	w    *work     // nil until the first write
	done bool
	// optimistic: see above. locked: the Tx holds s.writer.
	optimistic, locked bool
	// reads is the read footprint a SERIALIZABLE transaction validates at
	// commit (nil: reads are not tracked).
	reads *readTracker
	// stmt holds the view's id bounds when the running statement started
	// (MarkStatement).
	stmt struct {
		nodes, rels uint64
		marked      bool
	}
}

// work is the state of a Tx that has written.
type work struct {
	epoch uint64
	base  *Snapshot // the committed version the writes apply to
	cat   *catalog.Catalog
	v     Snapshot // private working version; v.ts is the commit ts to be
	ops   []Op     // the logical WAL record of the transaction
	// system says ops hold system records (SetSystem): the commit tells
	// the system watcher (system_watch.go).
	system bool
	// touched lists nodes whose labels or properties the transaction
	// changed while constraints exist: the nodes checked at commit.
	touched []uint64
	// recovering: the work replays the log at open, where a schema op an
	// older version allowed is taken as it was (adoptIndexesLocked).
	recovering bool
	// mu guards the state that reads may change lazily: the pending edges
	// folded into v.adj on an Adjacency read and the bitmap ownership
	// flags cleared when a bitmap is handed to a reader. Writes hold it
	// too.
	mu struct {
		sync.Mutex
		ownLive   bool         // v.live is a private copy no reader holds
		ownLabels []bool       // same, per label bitmap
		keys      []uint32     // containers (id >> 16) written in them
		ownRels   bool         // v.rels is a private copy of the group slice
		pending   [][]csr.Edge // per type: edges created since the last flush
		// pendingDel per type: relationships deleted since the last
		// flush, all of them in the adjacency (a delete flushes the
		// type's pending inserts first).
		pendingDel [][]uint64
	}
}

// Writes reports whether the transaction has written anything.
func (tx *Tx) Writes() bool { return tx.w != nil && len(tx.w.ops) > 0 }

// Ops is the transaction's write log so far: exactly what a logical WAL
// record of its commit holds. Read-only.
func (tx *Tx) Ops() []Op {
	if tx.w == nil {
		return nil
	}
	return tx.w.ops
}

var errDone = errs.New(errs.CodeTransaction, errs.CatTransaction, "storage: transaction already committed or rolled back")

// begin makes the Tx writable: a pessimistic Tx takes the commit lock and
// starts on the latest version; an optimistic one starts on its snapshot.
func (tx *Tx) begin() (*work, error) {
	if tx.done {
		return nil, errDone
	}
	if tx.w != nil {
		return tx.w, nil
	}
	s := tx.s
	base := tx.snap
	if !tx.optimistic {
		if !tx.locked { // BeginWriteContext took it already
			s.writer.Lock()
			tx.locked = true
		}
		if err := s.failure(); err != nil {
			tx.locked = false
			s.writer.Unlock()
			return nil, err
		}
		base = s.head
	}
	w := s.newWork(base)
	tx.w, tx.snap = w, &w.v
	return w, nil
}

// newWork starts a private working version on top of committed version
// base.
func (s *Store) newWork(base *Snapshot) *work {
	w := &work{epoch: s.epochs.Add(1), base: base, cat: s.cat}
	w.v = *base
	w.v.ts = base.ts + 1
	// Top-level tables are copied here (O(labels + keys + types)) so the
	// transaction owns them; their elements are copied on first write.
	// The relationship table's group slice is copied on its first write
	// (ownRelChunkLocked).
	w.v.labels = append([]*roaring.Bitmap(nil), base.labels...)
	w.v.nodeCols = append([]*column(nil), base.nodeCols...)
	w.v.relCols = append([]*column(nil), base.relCols...)
	w.v.adj = append([]adjPair(nil), base.adj...)
	w.v.typeRels = append([]int64(nil), base.typeRels...)
	w.v.indexes = append([]*nodeIndex(nil), base.indexes...)
	w.mu.ownLabels = make([]bool, len(base.labels))
	return w
}

// Commit publishes the transaction's writes as a new version and returns
// its timestamp, once the version is durable (commit.go). A transaction
// without writes commits at its snapshot's timestamp.
func (tx *Tx) Commit() (uint64, error) {
	if tx.done {
		return 0, errDone
	}
	tx.done = true
	defer tx.s.txEnded(tx)
	return tx.s.commit(tx)
}

// Rollback discards the transaction's writes. Ids it took stay unused.
// Rolling back a finished transaction is a no-op.
func (tx *Tx) Rollback() {
	if tx.done {
		return
	}
	tx.done = true
	tx.s.txEnded(tx)
	if tx.w != nil {
		tx.snap = tx.w.base
		tx.w = nil
	}
	if tx.locked {
		tx.locked = false
		tx.s.writer.Unlock()
	}
}

// sealLocked seals the chunks of groups that are complete in the new
// version: those completed by this commit (in every column) and those the
// transaction copied out of sealed form (in the columns it owns). It also
// compacts the containers it wrote in the bitmaps it owns and marks their
// containers shared, for the next writer (labels.go).
func (w *work) sealLocked() {
	seal := func(cols []*column, oldBound, newBound uint64) {
		from, to := int(oldBound>>groupShift), int(newBound>>groupShift)
		for k := range cols {
			sealOwned(cols[k], w.epoch, to)
			if to > from {
				sealComplete(&cols[k], w.epoch, from, to)
			}
		}
	}
	seal(w.v.nodeCols, w.base.nodeBound, w.v.nodeBound)
	seal(w.v.relCols, w.base.relBound, w.v.relBound)
	w.shareBitmapsLocked()
}

// Committed is the committed version the transaction reads while it has
// not written, nil once it has (its reads then include its own
// uncommitted writes). A committed version never changes, so what is
// derived from it may be shared across transactions keyed by it.
func (tx *Tx) Committed() *Snapshot {
	if tx.w != nil {
		return nil
	}
	return tx.snap
}

// view is what reads go to: the snapshot, or the private working version
// once the Tx has written.
func (tx *Tx) view() *Snapshot { return tx.snap }

var _ Reader = (*Tx)(nil)

// TS: see Reader.
func (tx *Tx) TS() uint64 { return tx.view().ts }

// BaseTS is the timestamp of the committed version the transaction reads
// under its own writes: its snapshot's, or once it wrote, the version its
// writes apply to. Secondary indexes (engine/index) answer at BaseTS and
// overlay the transaction's own writes (Ops).
func (tx *Tx) BaseTS() uint64 {
	if tx.w != nil {
		return tx.w.base.ts
	}
	return tx.snap.ts
}

// NodeIDBound: see Reader.
func (tx *Tx) NodeIDBound() uint64 { return tx.view().nodeBound }

// LiveNodes: see Reader. In a Tx with writes the bitmap is frozen for the
// caller: the next write copies it rather than changing it under them.
func (tx *Tx) LiveNodes() *roaring.Bitmap {
	tx.reads.markFlag(readNodes)
	w := tx.w
	if w == nil {
		return tx.snap.live
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.mu.ownLive = false
	return w.v.live
}

// LabelNodes: see Reader and LiveNodes.
func (tx *Tx) LabelNodes(l catalog.LabelID) *roaring.Bitmap {
	tx.reads.mark(readLabel, uint32(l))
	w := tx.w
	if w == nil {
		return tx.snap.LabelNodes(l)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if int(l) < len(w.mu.ownLabels) {
		w.mu.ownLabels[l] = false
	}
	return w.v.LabelNodes(l)
}

// HasLabel: see Reader.
func (tx *Tx) HasLabel(id uint64, l catalog.LabelID) bool {
	tx.reads.mark(readLabel, uint32(l))
	return tx.view().HasLabel(id, l)
}

// AppendNodeLabels: see Reader.
func (tx *Tx) AppendNodeLabels(dst []catalog.LabelID, id uint64) []catalog.LabelID {
	tx.reads.markFlag(readAllLabels)
	return tx.view().AppendNodeLabels(dst, id)
}

// NodePropType: see Reader.
func (tx *Tx) NodePropType(k catalog.KeyID) vector.Type {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().NodePropType(k)
}

// GatherNodeProp: see Reader.
func (tx *Tx) GatherNodeProp(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, out *vector.Vector) {
	tx.reads.mark(readNodeKey, uint32(k))
	tx.view().GatherNodeProp(k, ids, sel, n, out)
}

// NodeProps: see Reader.
func (tx *Tx) NodeProps(id uint64, fn func(k catalog.KeyID, v vector.Value)) {
	tx.reads.markFlag(readAllNodeKeys)
	tx.view().NodeProps(id, fn)
}

// NodeProp is node id's value of key k as the transaction sees it, nil
// when it has none.
func (tx *Tx) NodeProp(id uint64, k catalog.KeyID) vector.Value {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().NodeProp(id, k)
}

// RelProp is relationship id's value of key k as the transaction sees
// it, nil when it has none.
func (tx *Tx) RelProp(id uint64, k catalog.KeyID) vector.Value {
	tx.reads.mark(readRelKey, uint32(k))
	return tx.view().RelProp(id, k)
}

// NodeCount: see Reader.
func (tx *Tx) NodeCount() int64 {
	tx.reads.markFlag(readNodes)
	return tx.view().nodeCount
}

// RelCount: see Reader.
func (tx *Tx) RelCount() int64 {
	tx.reads.markFlag(readAllTypes)
	return tx.view().relCount
}

// TypeRelCount: see Snapshot.
func (tx *Tx) TypeRelCount(t catalog.TypeID) int64 {
	if a := tx.Adjacency(t, Outgoing); a != nil {
		return int64(a.NumEdges())
	}
	return 0
}

// Rel: see Reader.
func (tx *Tx) Rel(id uint64) (catalog.TypeID, uint64, uint64, bool) {
	tx.reads.markFlag(readAllTypes)
	return tx.view().Rel(id)
}

// RelPropType: see Reader.
func (tx *Tx) RelPropType(k catalog.KeyID) vector.Type {
	tx.reads.mark(readRelKey, uint32(k))
	return tx.view().RelPropType(k)
}

// GatherRelProp: see Reader.
func (tx *Tx) GatherRelProp(k catalog.KeyID, ids *vector.Vector, sel []int32, n int, out *vector.Vector) {
	tx.reads.mark(readRelKey, uint32(k))
	tx.view().GatherRelProp(k, ids, sel, n, out)
}

// NodeIntView: see Reader.
func (tx *Tx) NodeIntView(k catalog.KeyID, rows int) *IntView {
	tx.reads.mark(readNodeKey, uint32(k))
	return tx.view().NodeIntView(k, rows)
}

// RelIntView: see Reader.
func (tx *Tx) RelIntView(k catalog.KeyID, rows int) *IntView {
	tx.reads.mark(readRelKey, uint32(k))
	return tx.view().RelIntView(k, rows)
}

// RelSlotView: see Reader.
func (tx *Tx) RelSlotView(k catalog.KeyID, base *AdjacencyBase, rows int) *IntView {
	tx.reads.mark(readRelKey, uint32(k))
	return tx.view().RelSlotView(k, base, rows)
}

// RelSlotViewParts: see Snapshot.RelSlotViewParts.
func (tx *Tx) RelSlotViewParts(k catalog.KeyID, base *AdjacencyBase, rows int, par ForParts) (*IntView, error) {
	tx.reads.mark(readRelKey, uint32(k))
	return tx.view().RelSlotViewParts(k, base, rows, par)
}

// RelProps: see Reader.
func (tx *Tx) RelProps(id uint64, fn func(k catalog.KeyID, v vector.Value)) {
	tx.reads.markFlag(readAllRelKeys)
	tx.view().RelProps(id, fn)
}

// Adjacency: see Reader. In a Tx with writes, the relationships created
// since the last Adjacency read of type t are applied to its private
// adjacency versions here, in one batch (csr Apply is copy-on-write, so
// the returned version never changes under the caller).
func (tx *Tx) Adjacency(t catalog.TypeID, d Direction) *Adjacency {
	tx.reads.mark(readType, uint32(t))
	w := tx.w
	if w == nil {
		return tx.snap.Adjacency(t, d)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked(t)
	return w.v.Adjacency(t, d)
}

// View is the version the transaction reads: its snapshot, or its
// private working version once it has written (then valid until its next
// write). For planning: read through the Tx itself.
func (tx *Tx) View() *Snapshot { return tx.view() }
