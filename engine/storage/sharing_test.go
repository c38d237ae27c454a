package storage

import (
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

// picture is what a version holds of nodes [0, bound): labels, live set
// and property values, read through the Reader API.
type picture struct {
	live   []uint32
	labels [2][]uint32
	props  [2][]vector.Value
}

func takePicture(r Reader, labels []catalog.LabelID, keys []catalog.KeyID, bound uint64) picture {
	var p picture
	p.live = r.LiveNodes().ToArray()
	for i, l := range labels {
		p.labels[i] = r.LabelNodes(l).ToArray()
	}
	ids := vector.New(vector.Node, int(bound))
	for i := range ids.IDs[:bound] {
		ids.IDs[i] = uint64(i)
	}
	for i, k := range keys {
		out := vector.New(vector.Any, int(bound))
		r.GatherNodeProp(k, ids, nil, int(bound), out)
		for j := range int(bound) {
			p.props[i] = append(p.props[i], out.Get(j))
		}
	}
	return p
}

func (p picture) diff(q picture) error {
	if fmt.Sprint(p.live) != fmt.Sprint(q.live) {
		return fmt.Errorf("live set changed: %d nodes, then %d", len(p.live), len(q.live))
	}
	for i := range p.labels {
		if fmt.Sprint(p.labels[i]) != fmt.Sprint(q.labels[i]) {
			return fmt.Errorf("label %d changed: %d nodes, then %d", i, len(p.labels[i]), len(q.labels[i]))
		}
	}
	for i := range p.props {
		for id := range p.props[i] {
			if fmt.Sprint(p.props[i][id]) != fmt.Sprint(q.props[i][id]) {
				return fmt.Errorf("property %d of node %d changed: %v, then %v", i, id, p.props[i][id], q.props[i][id])
			}
		}
	}
	return nil
}

// A snapshot keeps what it saw while commits replace the leaves, chunks
// and bitmap containers it shares with the versions after it: 600
// commits create nodes across a group, a leaf (64 groups) and a bitmap
// container (2^16 ids) boundary, set properties in sealed chunks, add and
// remove labels and delete nodes; readers compare the held snapshot with
// its first picture while they run (the race detector sees the sharing)
// and after, and every version passes Check.
func TestSnapshotHeldAcrossCommits(t *testing.T) {
	const start = 1<<17 - 150 // near the end of leaf 0 and of container 1
	ids, cs := make([]int64, start), make([]int64, start)
	for i := range ids {
		ids[i], cs[i] = int64(i), int64(i%7)
	}
	s, err := BulkLoad([]BulkNodes{
		{Labels: []string{"A"}, Count: start / 2, Cols: []BulkColumn{{Key: "id", Type: vector.Int64, I64: ids[:start/2]}, {Key: "c", Type: vector.Int64, I64: cs[:start/2]}}},
		{Labels: []string{"B"}, Count: start - start/2, Cols: []BulkColumn{{Key: "id", Type: vector.Int64, I64: ids[start/2:]}, {Key: "c", Type: vector.Int64, I64: cs[start/2:]}}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cat := s.Catalog()
	labels := []catalog.LabelID{cat.EnsureLabel("A"), cat.EnsureLabel("B")}
	keys := []catalog.KeyID{cat.EnsureKey("id"), cat.EnsureKey("c")}
	r := rand.New(rand.NewSource(30))
	commit := func(f func(tx *Tx) error) {
		t.Helper()
		tx := s.Begin()
		if err := f(tx); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	// A first round of commits, so that the held version is one a
	// commit made (its containers marked shared), not the bulk load.
	for i := range 50 {
		commit(func(tx *Tx) error {
			_, err := tx.CreateNode(labels[i%2:i%2+1], keys, []vector.Value{int64(start + i), int64(i)})
			return err
		})
	}
	held := s.Snapshot()
	bound := held.NodeIDBound() + 700
	want := takePicture(held, labels, keys, bound)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := want.diff(takePicture(held, labels, keys, bound)); err != nil {
					t.Errorf("while committing: %v", err)
					return
				}
			}
		})
	}
	for i := range 600 {
		id := uint64(r.Intn(int(held.NodeIDBound())))
		commit(func(tx *Tx) error {
			switch i % 5 {
			case 0, 1:
				_, err := tx.CreateNode(labels[i%2:i%2+1], keys, []vector.Value{int64(-i), "x"})
				return err
			case 2:
				if !tx.view().nodeLive(id) {
					return nil
				}
				return tx.SetNodeProps(id, keys, []vector.Value{nil, float64(i)})
			case 3:
				if !tx.view().nodeLive(id) {
					return nil
				}
				if _, err := tx.AddLabels(id, labels[(i/5)%2:(i/5)%2+1]); err != nil {
					return err
				}
				_, err := tx.RemoveLabels(id, labels[1-(i/5)%2:2-(i/5)%2])
				return err
			default:
				if !tx.view().nodeLive(id) {
					return nil
				}
				_, _, err := tx.DeleteNode(id, true)
				return err
			}
		})
		if i%100 == 0 {
			if err := s.Check(); err != nil {
				t.Fatalf("after commit %d: %v", i, err)
			}
		}
	}
	close(stop)
	wg.Wait()
	if err := want.diff(takePicture(held, labels, keys, bound)); err != nil {
		t.Fatalf("after the commits: %v", err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	latest := s.Snapshot()
	if err := latest.Check(); err != nil {
		t.Fatal(err)
	}
	if latest.NodeIDBound() <= 1<<17 {
		t.Fatalf("the commits ended at id %d, short of leaf 1 and container 2", latest.NodeIDBound())
	}
	// The latest version shares the containers it did not write with
	// the held one, and a copy of it made by a reader is its own.
	c := latest.LiveNodes().Clone()
	c.Add(uint32(latest.NodeIDBound()))
	if latest.LiveNodes().Contains(uint32(latest.NodeIDBound())) {
		t.Fatal("a reader's clone of the live set wrote into the version")
	}
	_ = roaring.And(latest.LiveNodes(), held.LiveNodes())
}
