package index

import (
	"context"
	"sync/atomic"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
)

// Kind implements one secondary index type.
type Kind interface {
	// Check vets a definition before CREATE commits it (an unknown
	// analyzer, a bad option): a user error.
	Check(def *catalog.Index) error
	// New returns an empty index for def.
	New(def *catalog.Index, cat *catalog.Catalog) (Index, error)
}

// Index is one secondary index the Manager maintains. Populate runs
// first, once; Apply is then called with every later commit, in commit
// order, from one goroutine: all the commits queued since the last call
// at once, so an index that fell behind a burst of writes catches up in
// one batch rather than one per commit. Searches (the kind's own API)
// may run concurrently with either.
type Index interface {
	// Populate indexes what snap holds, adding to prog as it goes; it
	// stops with ctx's error when ctx ends.
	Populate(ctx context.Context, snap *storage.Snapshot, prog *Progress) error
	// Apply indexes a run of commits, oldest first (each one's Base and
	// Version say what it changed).
	Apply(recs []*storage.CommitRecord) error
	// Close releases the index.
	Close() error
}

// Progress counts a populate's work: Total elements to index, Done so
// far. db.indexes() shows Done/Total as populationPercent.
type Progress struct {
	Done, Total atomic.Int64
}

// Percent is Done/Total in percent (0 until Total is known).
func (p *Progress) Percent() float64 {
	t := p.Total.Load()
	if t <= 0 {
		return 0
	}
	return 100 * float64(min(p.Done.Load(), t)) / float64(t)
}
