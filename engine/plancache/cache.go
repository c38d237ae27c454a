// Package plancache keeps a database's optimized plans between runs of
// a statement text, with what each was made from, so that a repeated
// statement skips binding and optimizing (engine/statement_plan.go asks
// it before planning).
package plancache

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// Clients send the same texts over and over with other parameter values,
// and binding and optimizing a short statement cost as much as running
// it (bench/fixed-cost-notes.md). The plan cache keeps optimized plans,
// one cache per database, so that a repeated statement skips both.
//
// A plan is reused only for a run that would bind and optimize it the
// same way:
//   - the key is the text, the rules switched off (Options.DisabledRules)
//     and the parameters' shape (plan.ParamShape: names, types, kinds, a
//     list's element type);
//   - the entry keeps the procedure registry's version, the schema (the
//     indexes and constraints of the snapshot the plan was made on) and
//     the index statistics the optimizer weighed: another version, another
//     schema (an index or constraint created or dropped, committed or in
//     the run's own transaction), or a statistic that has more than
//     doubled or halved since makes the run plan afresh and replace the
//     entry. Between those bounds a plan chosen by cost (which index of
//     two serves a scan, whether a label-less lookup is a union of seeks)
//     stays the one chosen, as with any plan cache;
//   - a plan holding a parameter's value (plan.Plan.ValueBound: CREATE
//     (n $props)) is never kept, and the checks binding made of a SKIP
//     or LIMIT parameter's value run again on every reuse (Recheck).
//
// Privileges are checked on every run, on the cached bound plan. Nothing
// after the optimizer writes to a plan (exec.Build reads it to make each
// run's operators), so runs share an entry's plan: TestQueryCorpus runs
// each reading query twice and compares the plan the second run took
// with a fresh plan of its statement (CheckPlanCache), and the
// metamorphic run reruns its queries from four goroutines on the cached
// plans, under -race in CI.
//
// Two generations approximate LRU, as the parse cache's do
// (engine/gql/cache.go); the lock is held to look up and to insert,
// never while planning. A generation is full at half the entries, or
// when its plans' estimated bytes reach half of maxBytes.
const (
	// DefaultEntries is the cache's bound in entries when the
	// database's options give none.
	DefaultEntries = 1024
	maxText        = 8 << 10
	maxBytes       = 32 << 20
	// planBytesFactor estimates an entry from its key (the text and the
	// parameters' shape): measured with the heap, an optimized plan takes
	// 14 to 27 times its text (1.1 KB for a 39-byte point lookup, 2.0 KB
	// for a 75-byte expansion with a sum, 19 KB for a RETURN of 100
	// properties in 1.4 KB), so 32 per byte of the key and planBytesBase
	// for the entry, its infos and the map's slot hold it.
	planBytesFactor = 32
	planBytesBase   = 1 << 10
)

// Cache is a database's cache of optimized plans (nil: off).
type Cache struct {
	mu         sync.Mutex
	cur, old   map[string]*Entry
	curBytes   int64
	maxEntries int
	// Hits and Misses count lookups of cacheable texts (the caller counts
	// them; tests and metrics read them).
	Hits, Misses atomic.Int64
}

// Entry is one optimized plan and what it was made with: the procedure
// registry's version, the schema and the index statistics the optimizer
// weighed.
type Entry struct {
	Plan   *plan.Plan
	Procs  uint64
	Schema *catalog.Schema
	Infos  []plan.IndexInfo
	bytes  int64
}

// New returns a cache of at most entries plans: zero means
// DefaultEntries, a negative number no cache (nil).
func New(entries int) *Cache {
	if entries < 0 {
		return nil
	}
	if entries == 0 {
		entries = DefaultEntries
	}
	return &Cache{cur: map[string]*Entry{}, maxEntries: max(entries/2, 1)}
}

// Key appends the cache key of a run of text to dst: nil when the
// text is not cached (too long). A caller's buffer on its stack keeps a
// hit from allocating the key.
func Key(dst []byte, text string, disabled []string, params map[string]vector.Value) []byte {
	if len(text) > maxText {
		return nil
	}
	k := append(dst, text...)
	k = append(k, 0)
	for _, r := range disabled {
		k = append(k, r...)
		k = append(k, ',')
	}
	k = append(k, 0)
	return plan.ParamShape(k, params)
}

// Get returns the entry of key, or nil.
func (c *Cache) Get(key []byte) *Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.cur[string(key)]; e != nil {
		return e
	}
	e := c.old[string(key)]
	if e != nil {
		delete(c.old, string(key))
		c.putLocked(string(key), e)
	}
	return e
}

// Put keeps e under key, replacing an entry made for another schema or
// statistics.
func (c *Cache) Put(key string, e *Entry) {
	e.bytes = planBytesBase + planBytesFactor*int64(len(key))
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.old, key)
	c.putLocked(key, e)
}

func (c *Cache) putLocked(key string, e *Entry) {
	if prev := c.cur[key]; prev != nil {
		c.curBytes -= prev.bytes
	} else if len(c.cur) >= c.maxEntries || c.curBytes+e.bytes > maxBytes/2 {
		c.old, c.cur = c.cur, make(map[string]*Entry, len(c.cur))
		c.curBytes = 0
	}
	c.cur[key] = e
	c.curBytes += e.bytes
}

// Len is the number of entries held.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cur) + len(c.old)
}

// Fits reports whether the entry may serve a run on snap with the
// registry at version procs: the same schema, and statistics near those
// the plan was made with (read from snap as the engine reads them for the optimizer,
// without making the infos).
func (e *Entry) Fits(procs uint64, snap *storage.Snapshot) bool {
	schema := snap.Schema()
	if e.Procs != procs || !sameSchema(e.Schema, schema) || len(e.Infos) != len(schema.Indexes) {
		return false
	}
	for i, ix := range schema.Indexes {
		a := &e.Infos[i]
		entries, distinct := snap.IndexStats(ix)
		if a.Name != ix.Name || !near(a.Entries, entries) || !near(a.Distinct, distinct) || !near(a.Holders, snap.IndexKeyHolders(ix)) {
			return false
		}
	}
	return true
}

// near reports whether a statistic b is within a factor of two of a,
// what the plan was made with.
func near(a, b int64) bool {
	if a == b {
		return true
	}
	lo, hi := min(a, b), max(a, b)
	return lo > 0 && hi <= 2*lo
}

// sameSchema reports whether two schemas hold the same indexes and
// constraints. A schema is copied on every change, so the same pointer
// is the same schema; different pointers are compared by content (a
// transaction's own copy, an index dropped and created again alike).
func sameSchema(a, b *catalog.Schema) bool {
	if a == b {
		return true
	}
	if len(a.Indexes) != len(b.Indexes) || len(a.Constraints) != len(b.Constraints) {
		return false
	}
	for i, x := range a.Indexes {
		y := b.Indexes[i]
		if x.Name != y.Name || x.Type != y.Type || x.Label != y.Label || x.Constraint != y.Constraint || !slices.Equal(x.Keys, y.Keys) {
			return false
		}
	}
	for i, x := range a.Constraints {
		if *x != *b.Constraints[i] {
			return false
		}
	}
	return true
}
