package storage

import (
	"strings"
	"sync/atomic"
)

// Watching system records. A server keeps its own state (users, keys,
// sessions) in system records and an in-memory view of them; on a
// member of a replicated cluster other members' commits change the
// records too (applied by ApplyReplicated), and the view must follow.
//
// The store tells one watcher the keys each commit changed, after the
// commit is published, on the goroutine that published it:
//
//	commit (no log, WAL)   after its sync and publish
//	leader (replicated)    confirmOwn: the state machine published it
//	follower (replicated)  ApplyReplicated, after the recovery path installed it
//
// A commit may be told more than once and commits may be told out of
// order (group commits publish in any order; a leader's committer
// publishes its own copy after the state machine did): the watcher
// re-reads the keys from the latest version (Snapshot.SystemGet), which
// holds every commit it was told of, rather than trust the order.

// SystemWatcher receives the keys of the system records a published
// commit set or deleted. It runs on a committing goroutine or the
// replicated log's apply goroutine: it must not block, take the commit
// lock or write.
type SystemWatcher func(keys []string)

// WatchSystem makes fn the store's system watcher from now on; nil stops
// it.
func (s *Store) WatchSystem(fn SystemWatcher) {
	if fn == nil {
		s.sysWatch.Store(nil)
		return
	}
	s.sysWatch.Store(&fn)
}

// systemWatch holds the watcher (the Store's sysWatch field).
type systemWatch = atomic.Pointer[SystemWatcher]

// systemChanged tells the watcher the system keys of ops, a published
// commit's. A commit without system records costs a pass over its ops
// only while a watcher is set.
func (s *Store) systemChanged(ops []Op) {
	fn := s.sysWatch.Load()
	if fn == nil {
		return
	}
	var keys []string
	for i := range ops {
		if ops[i].Kind == OpSetSystem {
			keys = append(keys, ops[i].Name)
		}
	}
	if len(keys) > 0 {
		(*fn)(keys)
	}
}

// SystemHas reports whether the transaction's view holds a system
// record whose key starts with prefix: under a pessimistic Tx's commit
// lock, a check that a commit of the same Tx may rely on.
func (tx *Tx) SystemHas(prefix string) bool {
	s := tx.snap
	if s == nil || s.sys == nil {
		return false
	}
	for _, b := range s.sys.buckets {
		if b == nil {
			continue
		}
		for k := range b.m {
			if strings.HasPrefix(k, prefix) {
				return true
			}
		}
	}
	return false
}
