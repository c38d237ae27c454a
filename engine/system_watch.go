package engine

import (
	"context"
	"strings"
	"sync"

	"github.com/quiverdb/quiver/engine/system"
)

// What a server keeping its own state in system records (package
// frontend/auth) needs on a member of a replicated cluster: to hear of
// the records other members' commits change (WatchSystem), to know
// whether this member takes writes (Writable) and when it starts to
// (OnLead), and to create a record exactly once cluster-wide
// (SystemPutIfAbsent).

// hooks are the DB's system watchers and lead hooks.
type hooks struct {
	mu     sync.Mutex // protects the fields below
	next   int
	system map[int]systemWatcher
	lead   map[int]func()
}

type systemWatcher struct {
	prefix string
	fn     func(keys []string)
}

// WatchSystem calls fn with the keys under prefix of the system records
// each published commit set or deleted: this member's commits and, on a
// member of a replicated cluster, every entry it applies. fn runs on the
// committing or applying goroutine, after the commit is visible to
// SystemGet: it must be quick and must neither block nor write. A commit
// may be told twice, and commits out of order: read each key's value now
// (SystemGet) rather than rely on the order. stop ends the calls.
func (db *DB) WatchSystem(prefix string, fn func(keys []string)) (stop func()) {
	h := &db.hooks
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.system == nil {
		h.system = map[int]systemWatcher{}
		db.store.WatchSystem(db.systemChanged)
	}
	h.next++
	id := h.next
	h.system[id] = systemWatcher{prefix: prefix, fn: fn}
	return func() {
		h.mu.Lock()
		delete(h.system, id)
		h.mu.Unlock()
	}
}

// systemChanged is the store's system watcher: it hands each watcher
// its keys.
func (db *DB) systemChanged(keys []string) {
	h := &db.hooks
	h.mu.Lock()
	ws := make([]systemWatcher, 0, len(h.system))
	for _, w := range h.system {
		ws = append(ws, w)
	}
	h.mu.Unlock()
	for _, w := range ws {
		var mine []string
		for _, k := range keys {
			if strings.HasPrefix(k, w.prefix) {
				mine = append(mine, k)
			}
		}
		if len(mine) > 0 {
			w.fn(mine)
		}
	}
}

// Writable is nil when this database takes writes now: always for a
// single server; on a member of a replicated cluster only while it leads
// (else the 25006 error naming the leader, as a write statement gets).
func (db *DB) Writable() error { return db.writable() }

// OnLead calls fn, on a goroutine of its own, each time this member of
// a replicated cluster starts taking writes (it won an election and
// applied every earlier entry). A database that is not replicated takes
// writes from the start and never calls fn. stop ends the calls.
func (db *DB) OnLead(fn func()) (stop func()) {
	h := &db.hooks
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lead == nil {
		h.lead = map[int]func(){}
	}
	h.next++
	id := h.next
	h.lead[id] = fn
	return func() {
		h.mu.Lock()
		delete(h.lead, id)
		h.mu.Unlock()
	}
}

// led is the replication's lead hook.
func (db *DB) led() {
	if db.closed.Load() {
		return
	}
	h := &db.hooks
	h.mu.Lock()
	for _, fn := range h.lead {
		go fn()
	}
	h.mu.Unlock()
}

// SystemPutIfAbsent stores recs as SystemPut does, in one commit, unless
// a system record whose key starts with prefix exists: it checks under
// the commit lock, so of two callers (or two leaders in turn) only one
// stores. created says whether it stored. On a member of a replicated
// cluster the commit is an entry of the log like any other: one that
// lands after another leader's fails and stores nothing.
func (db *DB) SystemPutIfAbsent(ctx context.Context, prefix string, recs []SystemRecord) (created bool, err error) {
	if err := db.checkSystemPut(recs); err != nil {
		return false, err
	}
	return system.PutIfAbsent(ctx, db.store, prefix, recs)
}
