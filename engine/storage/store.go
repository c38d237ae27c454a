package storage

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/catalog"
)

// maxNodeID is the largest node id: label and live sets are 32-bit roaring
// bitmaps, so a store holds at most 2^32 node ids (holes from aborted
// transactions included). Creating more is a 53200 error.
const maxNodeID = 1<<32 - 1

// Store holds one property graph in memory. Reads go through a Snapshot
// (lock-free, pinned) or a Tx; every write goes through a Tx.
type Store struct {
	cat *catalog.Catalog
	// cur is the latest committed version; readers load it without a lock.
	cur atomic.Pointer[Snapshot]
	// nextNode and nextRel hand out dense ids. Ids taken by a transaction
	// that rolls back are never reused (a hole below the bound), so an id
	// a client once saw never names another entity.
	nextNode atomic.Uint64
	nextRel  atomic.Uint64
	// epochs stamps write transactions; a chunk or column stamped with a
	// transaction's epoch is private to it and mutated in place.
	epochs atomic.Uint64
	// writer serializes write transactions: a Tx locks it at its first
	// write and unlocks at Commit or Rollback. Writer–writer concurrency
	// (first committer wins) is for the transactions issue. Readers never
	// touch it.
	writer struct{ sync.Mutex }
	// compacting is set while the background compactor runs (compact.go);
	// bg waits for it.
	compacting atomic.Bool
	bg         sync.WaitGroup
}

// New returns an empty store.
func New() *Store {
	s := &Store{cat: catalog.New()}
	s.cur.Store(emptySnapshot())
	return s
}

// Catalog is the store's name ↔ id catalog.
func (s *Store) Catalog() *catalog.Catalog { return s.cat }

// Snapshot is the latest committed version.
func (s *Store) Snapshot() *Snapshot { return s.cur.Load() }

// Begin starts a transaction reading the latest snapshot. Until its first
// write it costs what a Snapshot costs: no lock is taken.
func (s *Store) Begin() *Tx { return &Tx{s: s, snap: s.cur.Load()} }

// BeginAt starts a transaction that reads snap, a version Snapshot
// returned: a statement plans and runs on one snapshot. A write still
// moves to the latest version when it takes the writer's lock.
func (s *Store) BeginAt(snap *Snapshot) *Tx { return &Tx{s: s, snap: snap} }

// Check verifies the invariants of the latest version.
func (s *Store) Check() error {
	if err := s.cur.Load().Check(); err != nil {
		return fmt.Errorf("storage: %w", err)
	}
	return nil
}
