package storage

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// Readers scan snapshots while a writer commits; every reader's view must
// be self-consistent: each node carries exactly one of two labels, so the
// label cardinalities sum to NodeCount; every relationship is in both
// adjacencies; the gathered "n" property sums to what the writer stored.
func TestConcurrentReadersAndWriter(t *testing.T) {
	s := New()
	cat := s.Catalog()
	labels := []catalog.LabelID{cat.EnsureLabel("A"), cat.EnsureLabel("B")}
	k := cat.EnsureKey("n")
	ty := cat.EnsureType("T")
	const commits, perCommit = 60, 97
	var stop atomic.Bool
	var wg sync.WaitGroup
	var scans atomic.Int64
	// sums[id] is written before the commit that publishes id (the atomic
	// publish orders it before any reader that can see id).
	sums := make([]int64, commits*perCommit)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := vector.New(vector.Node, vector.Capacity)
			out := vector.New(vector.Int64, vector.Capacity)
			for !stop.Load() {
				snap := s.Snapshot()
				var sum uint64
				for _, l := range labels {
					sum += snap.LabelNodes(l).GetCardinality()
				}
				if int64(sum) != snap.NodeCount() || snap.LiveNodes().GetCardinality() != sum {
					t.Errorf("ts %d: labels %d, nodes %d", snap.TS(), sum, snap.NodeCount())
					return
				}
				// Gather n of every node back and compare with what was stored.
				var total, want int64
				it := snap.LiveNodes().Iterator()
				for it.HasNext() {
					n := 0
					for n < vector.Capacity && it.HasNext() {
						id := uint64(it.Next())
						ids.IDs[n] = id
						want += sums[id]
						n++
					}
					if snap.NodePropType(k) != vector.Int64 && snap.NodeCount() > 0 {
						t.Errorf("type %s", snap.NodePropType(k))
						return
					}
					snap.GatherNodeProp(k, ids, nil, n, out)
					for r := 0; r < n; r++ {
						total += out.I64[r]
					}
				}
				if total != want {
					t.Errorf("ts %d: gathered sum %d, want %d", snap.TS(), total, want)
					return
				}
				if a := snap.Adjacency(ty, Outgoing); a != nil {
					if int64(a.NumEdges()) != snap.RelCount() || int64(snap.Adjacency(ty, Incoming).NumEdges()) != snap.RelCount() {
						t.Errorf("ts %d: adjacency has %d edges, RelCount %d", snap.TS(), a.NumEdges(), snap.RelCount())
						return
					}
				}
				scans.Add(1)
			}
		}()
	}
	for c := 0; c < commits; c++ {
		tx := s.Begin()
		var prev uint64
		for i := 0; i < perCommit; i++ {
			id, err := tx.CreateNode(labels[i%2:i%2+1], []catalog.KeyID{k}, []vector.Value{int64(i%5 + 1)})
			if err != nil {
				t.Fatal(err)
			}
			sums[id] = int64(i%5 + 1)
			if i > 0 {
				if _, err := tx.CreateRel(ty, prev, id, nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			prev = id
		}
		if c%7 == 3 {
			tx.Rollback()
			continue
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d snapshot scans during %d commits", scans.Load(), commits)
}
