package algo

import (
	"fmt"

	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// algoCacheShare is the part of the server-wide memory budget the
// projection cache may hold by default.
const algoCacheShare = 8

// defaultAlgoCacheBytes is the cache's bound without a budget.
const defaultAlgoCacheBytes = 1 << 30

// DefaultCacheBytes is the projection cache's bound for a server budget
// of maxMemory bytes (engine.Options.MaxMemory after its default): an
// eighth of it, or 1 GiB when there is no budget.
func DefaultCacheBytes(maxMemory int64) int64 {
	if maxMemory <= 0 {
		return defaultAlgoCacheBytes
	}
	return maxMemory / algoCacheShare
}

// CacheFor is a database's projection cache for its
// Options.AlgoCacheBytes (limit: zero for the default, negative for none)
// and its server budget; nil when disabled.
func CacheFor(limit, budget int64) *Cache {
	switch {
	case limit < 0:
		return nil
	case limit == 0:
		limit = DefaultCacheBytes(budget)
	}
	return NewCache(limit)
}

var algoCacheFields = []procs.Field{
	{Name: "entries", Type: "INTEGER"}, {Name: "bytes", Type: "INTEGER"}, {Name: "maxBytes", Type: "INTEGER"},
	{Name: "hits", Type: "INTEGER"}, {Name: "misses", Type: "INTEGER"}, {Name: "evictions", Type: "INTEGER"},
}

// registerCacheProcedure adds algo.cache.stats(): one row with the
// projection cache's entries, bytes, bound (maxBytes) and counters (all
// zero when the cache is off).
func (ps *procedures) registerCacheProcedure(reg *procs.Registry) error {
	p := &procs.Procedure{Signature: procs.Signature{Name: "algo.cache.stats", Outputs: algoCacheFields, Requires: procs.PrivRead},
		Fn: func(*procs.Context, []vector.Value) ([][]vector.Value, error) {
			var s CacheStats
			if ps.cache != nil {
				s = ps.cache.Stats()
			}
			return [][]vector.Value{{int64(s.Entries), s.Bytes, s.Limit, s.Hits, s.Misses, s.Evictions}}, nil
		}}
	if err := reg.Register(p); err != nil {
		return fmt.Errorf("cannot register %s: %w", p.Name, err)
	}
	return ps.registerCacheClear(reg)
}

var algoCacheClearFields = []procs.Field{{Name: "entries", Type: "INTEGER"}, {Name: "bytes", Type: "INTEGER"}}

// registerCacheClear adds algo.cache.clear() (admin): it empties the
// projection cache and yields the entries and bytes it dropped, so that
// an operator can give the memory back, or time a projection's build,
// without restarting. Calls running on a dropped graph keep it until
// they end.
func (ps *procedures) registerCacheClear(reg *procs.Registry) error {
	p := &procs.Procedure{Signature: procs.Signature{Name: "algo.cache.clear", Outputs: algoCacheClearFields, Requires: procs.PrivAdmin},
		Fn: func(*procs.Context, []vector.Value) ([][]vector.Value, error) {
			var entries int
			var bytes int64
			if ps.cache != nil {
				entries, bytes = ps.cache.Drop()
			}
			return [][]vector.Value{{int64(entries), bytes}}, nil
		}}
	if err := reg.Register(p); err != nil {
		return fmt.Errorf("cannot register %s: %w", p.Name, err)
	}
	return nil
}
