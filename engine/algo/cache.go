package algo

import (
	"container/list"
	"fmt"
	"strings"
	"sync"
	"weak"

	"github.com/quiverdb/quiver/engine/storage"
)

// Cache keeps projections between calls, so that a second algorithm on
// an unchanged graph skips projecting (0.3–0.5 s for a million vertices
// and 16M relationships). One Cache serves a database.
//
// An entry is a Graph built from one committed storage version and one
// shape (labels, types, direction, whether relationship ids or weights
// were read, the weight key). Committed versions are immutable, so an
// entry is valid for as long as that version exists; a commit publishes
// a new version, which misses. The key holds the version by a weak
// pointer: the cache never keeps a version alive, and entries of
// versions nobody reads any more are dropped at the next insert, but for
// the newest entry of each shape, which the next call of that shape
// patches (until a newer one replaces it or the bound evicts it). A
// transaction that has written reads its own working version, which is
// never looked up nor stored (ProjectCached).
//
// An entry answers a request of its shape whose arrays (Out, In, the
// out-degrees) it holds; a request needing more builds a new graph,
// which replaces the entry.
//
// The cache holds at most limit bytes (Graph.Bytes), least recently used
// entries evicted first; a graph larger than the limit is not cached.
// Its bytes are not any statement's: a statement that uses an entry is
// charged the graph's bytes while it runs, exactly as if it had built
// it (so max_memory_per_query decides the same whether the call hits or
// not), and the engine drops the whole cache before its heap watchdog
// fails a statement (docs/algorithms.md, "Projection cache").
type Cache struct {
	limit int64
	mu    struct {
		sync.Mutex // protects everything below
		entries    map[cacheKey]*list.Element
		lru        list.List // of *cacheEntry, most recently used first
		bytes      int64
		stats      CacheStats
	}
}

type cacheKey struct {
	version weak.Pointer[storage.Snapshot]
	shape   string
}

type cacheEntry struct {
	key   cacheKey
	g     *Graph
	bytes int64
	src   *source // what g was projected from, for a later version's patch
}

// CacheStats is the cache's state and counters.
type CacheStats struct {
	Entries   int
	Bytes     int64
	Limit     int64
	Hits      int64
	Misses    int64
	Evictions int64
	// Patches counts the misses served by patching an older version's
	// entry (patch) instead of projecting afresh; InPlace those of them
	// that changed the older graph's arrays in place (patcher.inPlace)
	// instead of copying them.
	Patches int64
	InPlace int64
}

// NewCache returns a cache of at most limit bytes; a limit of zero or
// less caches nothing.
func NewCache(limit int64) *Cache {
	c := &Cache{limit: limit}
	c.mu.entries = map[cacheKey]*list.Element{}
	return c
}

// Stats reports the cache's entries, bytes and counters.
func (c *Cache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.mu.stats
	s.Entries, s.Bytes, s.Limit = c.mu.lru.Len(), c.mu.bytes, c.limit
	return s
}

// Clear drops every entry (graphs in use stay alive for their users) and
// reports the bytes it dropped.
func (c *Cache) Clear() int64 {
	_, n := c.Drop()
	return n
}

// Drop is Clear, reporting the entries and the bytes it dropped.
func (c *Cache) Drop() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries, bytes = c.mu.lru.Len(), c.mu.bytes
	c.mu.stats.Evictions += int64(entries)
	c.mu.entries = map[cacheKey]*list.Element{}
	c.mu.lru.Init()
	c.mu.bytes = 0
	return entries, bytes
}

// ProjectCached is Project through the cache c (nil: no cache). Only a
// transaction reading a committed version (one that has not written)
// looks up or fills the cache. A hit charges r the graph's bytes and
// makes the transaction's reads as Project would (a SERIALIZABLE
// transaction's footprint is the same either way).
func ProjectCached(r *Run, c *Cache, tx *storage.Tx, p Projection) (*Graph, error) {
	if c == nil || c.limit <= 0 || p.Restricted {
		// A restricted projection is the principal's alone: neither
		// served from the cache nor kept in it.
		return Project(r, tx, p)
	}
	snap := tx.Committed()
	if snap == nil {
		return Project(r, tx, p)
	}
	key := cacheKey{version: weak.Make(snap), shape: p.shape()}
	if g := c.get(key, p); g != nil {
		r.hold(g)
		touch(tx, p)
		if err := r.charge(g.Bytes()); err != nil {
			return nil, err
		}
		return g, nil
	}
	if g0, src0, own := c.older(key.shape, snap.TS(), p); g0 != nil {
		touch(tx, p)
		g, src, inPlace, err := patch(r, tx, snap, p, g0, src0, own)
		if !own {
			g0.users.Add(-1)
		}
		if err != nil {
			return nil, err
		}
		if g != nil {
			c.mu.Lock()
			c.mu.stats.Patches++
			if inPlace {
				c.mu.stats.InPlace++
			}
			c.mu.Unlock()
			g.users.Add(1)
			r.hold(g)
			c.put(key, g, src)
			return g, nil
		}
	}
	g, err := Project(r, tx, p)
	if err != nil {
		return nil, err
	}
	g.users.Add(1)
	r.hold(g)
	c.put(key, g, sourceOf(snap, p))
	return g, nil
}

// older is the entry of shape built from the newest version older than
// ts that holds every array p asks for: what patch starts from. nil when
// there is none. When no call reads the graph (Graph.users), the entry
// leaves the cache and own is true: nobody can find the graph any more,
// and the patch may change it in place. Otherwise it is counted in its
// users while the patch copies it (the caller ends that).
func (c *Cache) older(shape string, ts uint64, p Projection) (g *Graph, src *source, own bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var best *cacheEntry
	for e := c.mu.lru.Front(); e != nil; e = e.Next() {
		ent := e.Value.(*cacheEntry)
		if ent.key.shape != shape || ent.src == nil || ent.src.ts >= ts || !covers(ent.g, p) {
			continue
		}
		if best == nil || ent.src.ts > best.src.ts {
			best = ent
		}
	}
	if best == nil {
		return nil, nil, false
	}
	if best.g.users.Load() == 0 {
		// users only grows under c.mu (get), so it stays 0 once the
		// entry is gone.
		e := c.mu.entries[best.key]
		c.mu.lru.Remove(e)
		delete(c.mu.entries, best.key)
		c.mu.bytes -= best.bytes
		return best.g, best.src, true
	}
	best.g.users.Add(1)
	return best.g, best.src, false
}

// shape is the part of p the graph's content depends on (besides the
// version), as a map key. Sorted is part of it: a sorted graph could
// serve any call, but PageRank's sums would then add in another order
// than on a fresh projection, and a hit must give the same bits. So is
// HubOrder, which numbers the vertices differently. Which arrays are
// built is not part of it: entries are matched on that by covers.
func (p *Projection) shape() string {
	var b strings.Builder
	fmt.Fprintf(&b, "d%d f%t l%v t%v r%t s%t h%t", p.Dir, p.FilterLabels, p.Labels, p.Types, p.OutRels || p.Weighted, p.Sorted, p.HubOrder)
	if p.Weighted {
		fmt.Fprintf(&b, " w%d m%t", p.Weight, p.WeightMissing)
	}
	return b.String()
}

// covers reports whether g holds every array p asks for.
func covers(g *Graph, p Projection) bool {
	hasOut := g.Out.Off != nil
	switch {
	case (p.Out || p.OutRels || p.Weighted) && !hasOut,
		p.OutRels && g.OutRel == nil,
		p.Weighted && g.OutW == nil,
		p.In && g.In.Off == nil,
		p.OutDegree && !hasOut && g.OutDeg == nil:
		return false
	}
	return true
}

// touch makes the reads a projection makes, for a transaction's read
// footprint, without building anything.
func touch(tx *storage.Tx, p Projection) {
	tx.LiveNodes()
	if p.FilterLabels {
		for _, l := range p.Labels {
			tx.LabelNodes(l)
		}
	}
	for _, t := range p.Types {
		tx.Adjacency(t, storage.Outgoing)
		tx.Adjacency(t, storage.Incoming)
	}
	if p.Weighted && !p.WeightMissing {
		tx.RelPropType(p.Weight)
	}
}

func (c *Cache) get(key cacheKey, p Projection) *Graph {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.mu.entries[key]; ok {
		ent := e.Value.(*cacheEntry)
		if covers(ent.g, p) {
			c.mu.lru.MoveToFront(e)
			c.mu.stats.Hits++
			ent.g.users.Add(1)
			return ent.g
		}
	}
	c.mu.stats.Misses++
	return nil
}

func (c *Cache) put(key cacheKey, g *Graph, src *source) {
	n := g.Bytes()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.mu.entries[key]; ok {
		c.removeLocked(e)
	}
	// An entry of the same shape and an older version is what the new
	// one was patched from, or could be: only a reader still on that
	// version would hit it.
	for e := c.mu.lru.Front(); e != nil; {
		next := e.Next()
		if ent := e.Value.(*cacheEntry); ent.key.shape == key.shape && ent.src != nil && ent.src.ts < src.ts {
			c.removeLocked(e)
		}
		e = next
	}
	if n > c.limit {
		return
	}
	// Entries of versions that are gone can never hit again, but the
	// newest of a shape is what that shape's next call patches (older):
	// it stays until replaced or evicted, whichever call made this put.
	// Dropping it here made a call of one algorithm cost the next call of
	// another, after a commit, a rebuild instead of a patch whenever a
	// collection had freed the older version in between.
	for e := c.mu.lru.Front(); e != nil; {
		next := e.Next()
		if ent := e.Value.(*cacheEntry); ent.key.version.Value() == nil && !c.newestLocked(ent) {
			c.removeLocked(e)
		}
		e = next
	}
	for c.mu.bytes+n > c.limit {
		c.removeLocked(c.mu.lru.Back())
	}
	c.mu.entries[key] = c.mu.lru.PushFront(&cacheEntry{key: key, g: g, bytes: n, src: src})
	c.mu.bytes += n
}

// newestLocked reports whether ent can still be patched from: it has a
// source and no entry of its shape comes from a newer version.
func (c *Cache) newestLocked(ent *cacheEntry) bool {
	if ent.src == nil {
		return false
	}
	for e := c.mu.lru.Front(); e != nil; e = e.Next() {
		if o := e.Value.(*cacheEntry); o.key.shape == ent.key.shape && o.src != nil && o.src.ts > ent.src.ts {
			return false
		}
	}
	return true
}

func (c *Cache) removeLocked(e *list.Element) {
	ent := c.mu.lru.Remove(e).(*cacheEntry)
	delete(c.mu.entries, ent.key)
	c.mu.bytes -= ent.bytes
	c.mu.stats.Evictions++
}

// Bytes is the memory g's arrays hold (what Project charged for them,
// temporaries aside).
func (g *Graph) Bytes() int64 {
	n := int64(len(g.Nodes))*u64Bytes + int64(len(g.dense))*u32Bytes + g.Out.bytes() +
		int64(cap(g.OutRel))*u64Bytes + int64(cap(g.OutW))*u64Bytes + int64(len(g.OutDeg))*u32Bytes
	if len(g.In.Off) > 0 && (len(g.Out.Off) == 0 || &g.In.Off[0] != &g.Out.Off[0]) {
		n += g.In.bytes()
	}
	return n
}

// bytes is the memory c's arrays hold, the room past the lists included.
func (c *CSR) bytes() int64 {
	return int64(len(c.Off)+cap(c.Nbr)+len(c.End)) * u32Bytes
}
