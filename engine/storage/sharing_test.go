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

// picture is what a version holds: its live set and labels, and the
// property values of nodes [lo, hi), read through the Reader API.
type picture struct {
	live   *roaring.Bitmap
	labels [2]*roaring.Bitmap
	props  [2][]vector.Value
}

func takePicture(r Reader, labels []catalog.LabelID, keys []catalog.KeyID, lo, hi uint64) picture {
	var p picture
	p.live = r.LiveNodes().Clone()
	for i, l := range labels {
		p.labels[i] = r.LabelNodes(l).Clone()
	}
	n := int(hi - lo)
	ids := vector.New(vector.Node, n)
	for i := range ids.IDs[:n] {
		ids.IDs[i] = lo + uint64(i)
	}
	for i, k := range keys {
		out := vector.New(vector.Any, n)
		r.GatherNodeProp(k, ids, nil, n, out)
		for j := range n {
			p.props[i] = append(p.props[i], out.Get(j))
		}
	}
	return p
}

func (p picture) diff(q picture) error {
	if !p.live.Equals(q.live) {
		return fmt.Errorf("live set changed: %d nodes, then %d", p.live.GetCardinality(), q.live.GetCardinality())
	}
	for i := range p.labels {
		if !p.labels[i].Equals(q.labels[i]) {
			return fmt.Errorf("label %d changed: %d nodes, then %d", i, p.labels[i].GetCardinality(), q.labels[i].GetCardinality())
		}
	}
	for i := range p.props {
		for r := range p.props[i] {
			if fmt.Sprint(p.props[i][r]) != fmt.Sprint(q.props[i][r]) {
				return fmt.Errorf("property %d of row %d changed: %v, then %v", i, r, p.props[i][r], q.props[i][r])
			}
		}
	}
	return nil
}

// A snapshot keeps what it saw while commits replace the leaves, chunks
// and bitmap containers it shares with the versions after it: 600
// commits create nodes across a group, a leaf (64 groups) and a bitmap
// container (2^16 ids) boundary, in bitmaps of more than fewContainers
// containers (shared container by container), set properties in sealed
// chunks, add and remove labels and delete nodes near the end of the id
// space; readers compare the held snapshot with its first picture while
// they run (the race detector sees the sharing) and after, and every
// version passes Check.
func TestSnapshotHeldAcrossCommits(t *testing.T) {
	const start = 3<<17 - 150 // near the end of leaf 2 and of container 5
	ids, cs := make([]int64, start), make([]int64, start)
	for i := range ids {
		ids[i], cs[i] = int64(i), int64(i%7)
	}
	// Sets of 10,000 nodes, labelled A and B in turn: both labels span
	// every container.
	var sets []BulkNodes
	for i := 0; i < start; i += 10000 {
		j := min(i+10000, start)
		sets = append(sets, BulkNodes{Labels: []string{[]string{"A", "B"}[i/10000%2]}, Count: j - i,
			Cols: []BulkColumn{{Key: "id", Type: vector.Int64, I64: ids[i:j]}, {Key: "c", Type: vector.Int64, I64: cs[i:j]}}})
	}
	s, err := BulkLoad(sets, nil)
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
	for _, b := range []*roaring.Bitmap{held.LiveNodes(), held.LabelNodes(labels[0]), held.LabelNodes(labels[1])} {
		if few(b) {
			t.Fatal("a bitmap spans too few containers to be shared container by container")
		}
	}
	lo, hi := uint64(start-3000), held.NodeIDBound()+700
	want := takePicture(held, labels, keys, lo, hi)

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
				if err := want.diff(takePicture(held, labels, keys, lo, hi)); err != nil {
					t.Errorf("while committing: %v", err)
					return
				}
			}
		})
	}
	for i := range 600 {
		id := lo + uint64(r.Intn(int(held.NodeIDBound()-lo)))
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
	if err := want.diff(takePicture(held, labels, keys, lo, hi)); err != nil {
		t.Fatalf("after the commits: %v", err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	latest := s.Snapshot()
	if err := latest.Check(); err != nil {
		t.Fatal(err)
	}
	if latest.NodeIDBound() <= 3<<17 {
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
