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
	// sealer seals encrypted properties at the write boundary (seal.go).
	sealer atomic.Pointer[sealerBox]
	// nextNode and nextRel hand out dense ids. Ids taken by a transaction
	// that rolls back are never reused (a hole below the bound), so an id
	// a client once saw never names another entity.
	nextNode atomic.Uint64
	nextRel  atomic.Uint64
	// epochs stamps write transactions; a chunk or column stamped with a
	// transaction's epoch is private to it and mutated in place.
	epochs atomic.Uint64
	// writer is the commit lock (commit.go): a pessimistic Tx holds it
	// from its first write to its end, an optimistic one only while it
	// commits. Readers never touch it. The fields below it are its.
	writer struct{ sync.Mutex }
	// head is the latest committed version, durable or not: the base of
	// the next commit.
	head *Snapshot
	// log makes commits durable (nil: in memory only); logged counts the
	// catalog names its records carry so far; rec is the encoding buffer.
	log    Log
	logged struct{ labels, types, keys int }
	rec    []byte
	// session is the writer whose id the records carry (writer.go).
	session writerSession
	// failed is set when the log failed: no commit is taken after it.
	failed atomic.Pointer[error]
	// hist is the conflict history of recent commits (conflict.go).
	hist history
	// txs tracks the open optimistic transactions and the ts of the
	// version each builds on: the history they may still need.
	txs struct {
		mu   sync.Mutex
		open map[*Tx]uint64
	}
	// compacting is set while the background compactor runs (compact.go);
	// bg waits for it.
	compacting atomic.Bool
	bg         sync.WaitGroup
	// feed hands durable commits to a change feed (engine/changes).
	feed commitFeed
	// sysWatch is told the system keys of published commits (system_watch.go).
	sysWatch systemWatch
	// repl is the replicated mode's state (replicated.go).
	repl replState
}

// New returns an empty store.
func New() *Store {
	s := &Store{cat: catalog.New()}
	s.install(emptySnapshot())
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
