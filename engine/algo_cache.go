package engine

import (
	"github.com/quiverdb/quiver/engine/algo"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

// algoCacheShare is the part of the server-wide memory budget the
// projection cache may hold by default.
const algoCacheShare = 8

// defaultAlgoCacheBytes is the cache's bound without a budget.
const defaultAlgoCacheBytes = 1 << 30

// DefaultAlgoCacheBytes is the projection cache's bound for a server
// budget of maxMemory bytes (Options.MaxMemory after its default): an
// eighth of it, or 1 GiB when there is no budget.
func DefaultAlgoCacheBytes(maxMemory int64) int64 {
	if maxMemory <= 0 {
		return defaultAlgoCacheBytes
	}
	return maxMemory / algoCacheShare
}

// newAlgoCache is the database's projection cache for Options'
// AlgoCacheBytes and the server budget; nil when disabled.
func newAlgoCache(limit, budget int64) *algo.Cache {
	switch {
	case limit < 0:
		return nil
	case limit == 0:
		limit = DefaultAlgoCacheBytes(budget)
	}
	return algo.NewCache(limit)
}

var algoCacheFields = []procs.Field{
	{Name: "entries", Type: "INTEGER"}, {Name: "bytes", Type: "INTEGER"}, {Name: "maxBytes", Type: "INTEGER"},
	{Name: "hits", Type: "INTEGER"}, {Name: "misses", Type: "INTEGER"}, {Name: "evictions", Type: "INTEGER"},
}

// registerAlgoCacheProcedure adds algo.cache.stats(): one row with the
// projection cache's entries, bytes, bound (maxBytes) and counters (all zero when
// the cache is off).
func (db *DB) registerAlgoCacheProcedure() {
	p := &procs.Procedure{Signature: procs.Signature{Name: "algo.cache.stats", Outputs: algoCacheFields, Requires: procs.PrivRead},
		Fn: func(*procs.Context, []vector.Value) ([][]vector.Value, error) {
			var s algo.CacheStats
			if db.algoCache != nil {
				s = db.algoCache.Stats()
			}
			return [][]vector.Value{{int64(s.Entries), s.Bytes, s.Limit, s.Hits, s.Misses, s.Evictions}}, nil
		}}
	if err := db.procs.Register(p); err != nil {
		panic("BUG: engine: algo procedure: " + err.Error())
	}
}
