package storage

import (
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// TestConcurrentReadersUpdatesDeletes: readers scan snapshots while a
// writer updates and deletes (and the background compactor folds
// overlays). Every commit keeps an invariant readers can check on any
// snapshot: nodes come in pairs whose values sum to zero, joined by one
// relationship, so the sum over live nodes is 0, NodeCount is even and
// the adjacency holds NodeCount/2 edges; Check passes on every snapshot.
func TestConcurrentReadersUpdatesDeletes(t *testing.T) {
	defer func(old int) { compactMin = old }(compactMin)
	compactMin = 16
	s := New()
	cat := s.Catalog()
	l := cat.EnsureLabel("P")
	k := cat.EnsureKey("v")
	ty := cat.EnsureType("PAIR")
	var stop atomic.Bool
	var wg sync.WaitGroup
	var scans atomic.Int64
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids := vector.New(vector.Node, vector.Capacity)
			out := vector.New(vector.Any, vector.Capacity)
			for !stop.Load() {
				snap := s.Snapshot()
				n := snap.NodeCount()
				if n%2 != 0 || int64(snap.LabelNodes(l).GetCardinality()) != n {
					t.Errorf("ts %d: %d nodes, %d labelled", snap.TS(), n, snap.LabelNodes(l).GetCardinality())
					return
				}
				var sum int64
				it := snap.LiveNodes().Iterator()
				for it.HasNext() {
					m := 0
					for m < vector.Capacity && it.HasNext() {
						ids.IDs[m] = uint64(it.Next())
						m++
					}
					snap.GatherNodeProp(k, ids, nil, m, out)
					for r := 0; r < m; r++ {
						sum += out.Any[r].(int64)
					}
				}
				edges := 0
				if a := snap.Adjacency(ty, Outgoing); a != nil {
					edges = a.NumEdges()
				}
				if sum != 0 || int64(edges) != n/2 || snap.RelCount() != n/2 {
					t.Errorf("ts %d: sum %d, %d edges, %d rels for %d nodes", snap.TS(), sum, edges, snap.RelCount(), n)
					return
				}
				if scans.Add(1)%16 == 0 {
					if err := snap.Check(); err != nil {
						t.Errorf("Check of a snapshot read concurrently: %v", err)
						return
					}
				}
			}
		}()
	}
	rnd := rand.New(rand.NewSource(1))
	type pair struct{ a, b, rel uint64 }
	var pairs []pair
	for c := 0; c < 80; c++ {
		tx := s.Begin()
		for i := 0; i < 10; i++ {
			switch op := rnd.Intn(3); {
			case op == 0 || len(pairs) < 4: // a new pair
				v := int64(rnd.Intn(100))
				a, _ := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k}, []vector.Value{v})
				b, _ := tx.CreateNode([]catalog.LabelID{l}, []catalog.KeyID{k}, []vector.Value{-v})
				r, err := tx.CreateRel(ty, a, b, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				pairs = append(pairs, pair{a, b, r})
			case op == 1: // update a pair
				p := pairs[rnd.Intn(len(pairs))]
				v := int64(rnd.Intn(100))
				if err := tx.SetNodeProps(p.a, []catalog.KeyID{k}, []vector.Value{v}); err != nil {
					t.Fatal(err)
				}
				if err := tx.SetNodeProps(p.b, []catalog.KeyID{k}, []vector.Value{-v}); err != nil {
					t.Fatal(err)
				}
			default: // delete a pair, the relationship explicitly or by detach
				j := rnd.Intn(len(pairs))
				p := pairs[j]
				pairs = append(pairs[:j], pairs[j+1:]...)
				if rnd.Intn(2) == 0 {
					if _, err := tx.DeleteRel(p.rel); err != nil {
						t.Fatal(err)
					}
				}
				if _, _, err := tx.DeleteNode(p.a, true); err != nil {
					t.Fatal(err)
				}
				if _, _, err := tx.DeleteNode(p.b, false); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	s.WaitCompaction()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d snapshot scans during 80 commits", scans.Load())
}
