package storage

import (
	"flag"
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/vector"
)

var seedFlag = flag.Int64("seed", 0, "rerun the model test with this seed only")

// model is the naive map-based graph the store is compared against.
type model struct {
	nodes map[uint64]*mNode
	rels  map[uint64]*mRel
}

type mNode struct {
	labels map[catalog.LabelID]bool
	props  map[catalog.KeyID]vector.Value
}

type mRel struct {
	t        catalog.TypeID
	src, dst uint64
	props    map[catalog.KeyID]vector.Value
}

func newModel() *model { return &model{nodes: map[uint64]*mNode{}, rels: map[uint64]*mRel{}} }

// clone copies the maps (entries are immutable once created).
func (m *model) clone() *model {
	c := newModel()
	for k, v := range m.nodes {
		c.nodes[k] = v
	}
	for k, v := range m.rels {
		c.rels[k] = v
	}
	return c
}

// gen produces random operations for one store.
type gen struct {
	rnd    *rand.Rand
	labels []catalog.LabelID
	types  []catalog.TypeID
	keys   []catalog.KeyID
	// vecOdd: one in vecOdd values of the embedding key is not a FLOAT
	// list of its dimension (a flat chunk turns boxed, or stays boxed).
	vecOdd int
}

// Key profiles: some keys are homogeneous (typed gather path), some mixed.
func (g *gen) value(k catalog.KeyID) vector.Value {
	r := g.rnd
	if r.Intn(10) == 0 {
		return nil
	}
	switch int(k) % 7 {
	case 0:
		return int64(r.Intn(1000) - 500)
	case 1:
		return fmt.Sprintf("s%d", r.Intn(100))
	case 2:
		return r.Float64()
	case 3:
		return r.Intn(2) == 0
	case 4: // mostly int, rarely a string: a side column
		if r.Intn(50) == 0 {
			return "odd"
		}
		return int64(r.Intn(10))
	case 5: // embeddings: flat chunks (chunk_vector.go)
		if r.Intn(g.vecOdd) == 0 {
			switch r.Intn(4) {
			case 0:
				return []vector.Value{int64(1), 2.0, 3.0} // an INTEGER element
			case 1:
				return []vector.Value{1.0, 2.0} // another dimension
			case 2:
				return []vector.Value{1.0, nil, 3.0}
			}
			return "odd" // a side value
		}
		return []vector.Value{r.Float64(), -r.Float64(), float64(r.Intn(3))}
	}
	switch r.Intn(7) {
	case 0:
		return int64(r.Intn(10))
	case 1:
		return "x"
	case 2:
		return 1.5
	case 3:
		return true
	case 4:
		return []vector.Value{int64(1), "a", nil, []vector.Value{false}}
	case 5:
		return map[string]vector.Value{"a": int64(r.Intn(3)), "b": []vector.Value{}}
	}
	return []vector.Value{}
}

func (g *gen) props() ([]catalog.KeyID, []vector.Value) {
	n := g.rnd.Intn(len(g.keys) + 1)
	var ks []catalog.KeyID
	var vs []vector.Value
	for _, i := range g.rnd.Perm(len(g.keys))[:n] {
		ks = append(ks, g.keys[i])
		vs = append(vs, g.value(g.keys[i]))
	}
	return ks, vs
}

func propMap(ks []catalog.KeyID, vs []vector.Value) map[catalog.KeyID]vector.Value {
	m := map[catalog.KeyID]vector.Value{}
	for i, k := range ks {
		if vs[i] == nil {
			delete(m, k)
		} else {
			m[k] = vs[i]
		}
	}
	return m
}

func TestModel(t *testing.T) {
	seeds := []int64{}
	if *seedFlag != 0 {
		seeds = append(seeds, *seedFlag)
	} else {
		base := time.Now().UnixNano()
		for i := int64(0); i < 10; i++ {
			seeds = append(seeds, base+i)
		}
	}
	defer func(old int) { compactMin = old }(compactMin)
	for i, seed := range seeds {
		big := i%5 == 0 // every fifth run crosses many group boundaries
		// Half the runs compact adjacency overlays early and often.
		compactMin = 1 << 16
		if i%2 == 1 {
			compactMin = 16
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d (rerun: go test -run TestModel ./engine/storage/ -seed %d)", seed, seed)
			runModel(t, seed, big)
		})
	}
}

// runModel runs random transactions against a store and the model,
// comparing them (and checking the store) after every step, and returns
// both, equal, at the end.
func runModel(t *testing.T, seed int64, big bool) (*Store, *model) {
	return runModelLogged(t, seed, big, nil, true)
}

// buildModel is runModel comparing only at the end: for tests that need
// the store and its model, not the steps (TestModel checks those).
func buildModel(t *testing.T, seed int64, big bool) (*Store, *model) {
	return runModelLogged(t, seed, big, nil, false)
}

// runModelLogged is runModel with commits logged to l (when not nil),
// comparing after every step when stepwise is set. The random choices do
// not depend on stepwise, so both build the same store.
func runModelLogged(t *testing.T, seed int64, big bool, l Log, stepwise bool) (*Store, *model) {
	rnd := rand.New(rand.NewSource(seed))
	s := New()
	if l != nil {
		s.SetLog(l)
	}
	cat := s.Catalog()
	g := &gen{rnd: rnd, vecOdd: 40}
	if seed%2 == 0 {
		g.vecOdd = 5000
	}
	for i := 0; i < 3; i++ {
		g.labels = append(g.labels, cat.EnsureLabel(fmt.Sprintf("L%d", i)))
		g.types = append(g.types, cat.EnsureType(fmt.Sprintf("T%d", i)))
	}
	for i := 0; i < 7; i++ {
		g.keys = append(g.keys, cat.EnsureKey(fmt.Sprintf("k%d", i)))
	}
	m := newModel()
	type pinned struct {
		snap *Snapshot
		m    *model
	}
	var old []pinned
	txs := 14
	for i := 0; i < txs; i++ {
		tx := s.Begin()
		pend := m.clone()
		nNodes := rnd.Intn(40)
		if big && rnd.Intn(3) == 0 {
			nNodes = 1000 + rnd.Intn(2500)
		}
		nRels := rnd.Intn(60)
		midChecked := false
		var liveIDs []uint64
		for id := range pend.nodes {
			liveIDs = append(liveIDs, id)
		}
		slices.Sort(liveIDs)
		for j := 0; j < nNodes+nRels; j++ {
			if j < nNodes || len(liveIDs) == 0 {
				var ls []catalog.LabelID
				for _, l := range g.labels {
					if rnd.Intn(2) == 0 {
						ls = append(ls, l)
					}
				}
				ks, vs := g.props()
				id, err := tx.CreateNode(ls, ks, vs)
				if err != nil {
					t.Fatalf("CreateNode: %v", err)
				}
				n := &mNode{labels: map[catalog.LabelID]bool{}, props: propMap(ks, vs)}
				for _, l := range ls {
					n.labels[l] = true
				}
				pend.nodes[id] = n
				liveIDs = append(liveIDs, id)
				continue
			}
			src := liveIDs[rnd.Intn(len(liveIDs))]
			dst := liveIDs[rnd.Intn(len(liveIDs))]
			if rnd.Intn(8) == 0 {
				dst = src // self loop
			}
			ty := g.types[rnd.Intn(len(g.types))]
			ks, vs := g.props()
			id, err := tx.CreateRel(ty, src, dst, ks, vs)
			if err != nil {
				t.Fatalf("CreateRel: %v", err)
			}
			pend.rels[id] = &mRel{t: ty, src: src, dst: dst, props: propMap(ks, vs)}
			if !midChecked && rnd.Intn(20) == 0 { // read own writes mid-transaction
				midChecked = true
				if stepwise {
					compare(t, "tx mid-write", tx, pend, cat)
				}
			}
		}
		updateRandomly(t, rnd, g, tx, pend, rnd.Intn(40))
		if rnd.Intn(5) == 0 {
			tx.Rollback()
			if stepwise {
				compare(t, "after rollback", s.Snapshot(), m, cat)
			}
			continue
		}
		if (!big || rnd.Intn(2) == 0) && stepwise {
			compare(t, "tx before commit", tx, pend, cat)
		}
		before := s.Snapshot()
		if _, err := tx.Commit(); err != nil {
			t.Fatalf("Commit: %v", err)
		}
		if tx.Writes() && s.Snapshot().TS() != before.TS()+1 {
			t.Fatalf("commit ts %d after %d", s.Snapshot().TS(), before.TS())
		}
		old = append(old, pinned{before, m})
		m = pend
		if rnd.Intn(4) == 0 { // compaction at random points, besides the background one
			s.Compact()
			if stepwise {
				if err := s.Check(); err != nil {
					t.Fatalf("Check after Compact: %v", err)
				}
				compare(t, "snapshot after compaction", s.Snapshot(), m, cat)
			}
		}
		if stepwise {
			if err := s.Check(); err != nil {
				t.Fatalf("Check after commit %d: %v", i, err)
			}
			compare(t, "snapshot after commit", s.Snapshot(), m, cat)
		}
	}
	s.WaitCompaction()
	if err := s.Check(); err != nil {
		t.Fatalf("Check after background compaction: %v", err)
	}
	compare(t, "after background compaction", s.Snapshot(), m, cat)
	for _, p := range old { // every pinned snapshot still answers as before
		if !stepwise {
			break
		}
		compare(t, "pinned snapshot", p.snap, p.m, cat)
		if err := p.snap.Check(); err != nil {
			t.Fatalf("Check of pinned snapshot: %v", err)
		}
	}
	return s, m
}

// updateRandomly runs n random updates and deletions through tx and
// applies them to pend (copying entries before changing them: the
// committed model shares them).
func updateRandomly(t *testing.T, rnd *rand.Rand, g *gen, tx *Tx, pend *model, n int) {
	t.Helper()
	for j := 0; j < n; j++ {
		var nodeIDs, relIDs []uint64
		for id := range pend.nodes {
			nodeIDs = append(nodeIDs, id)
		}
		for id := range pend.rels {
			relIDs = append(relIDs, id)
		}
		slices.Sort(nodeIDs)
		slices.Sort(relIDs)
		if len(nodeIDs) == 0 {
			return
		}
		node := nodeIDs[rnd.Intn(len(nodeIDs))]
		switch op := rnd.Intn(7); {
		case op == 0: // set node properties (nil removes)
			ks, vs := g.props()
			if err := tx.SetNodeProps(node, ks, vs); err != nil {
				t.Fatalf("SetNodeProps: %v", err)
			}
			n := copyNode(pend.nodes[node])
			for i, k := range ks {
				if vs[i] == nil {
					delete(n.props, k)
				} else {
					n.props[k] = vs[i]
				}
			}
			pend.nodes[node] = n
		case op == 1 && len(relIDs) > 0:
			rel := relIDs[rnd.Intn(len(relIDs))]
			ks, vs := g.props()
			if err := tx.SetRelProps(rel, ks, vs); err != nil {
				t.Fatalf("SetRelProps: %v", err)
			}
			r := *pend.rels[rel]
			r.props = maps.Clone(r.props)
			for i, k := range ks {
				if vs[i] == nil {
					delete(r.props, k)
				} else {
					r.props[k] = vs[i]
				}
			}
			pend.rels[rel] = &r
		case op == 2 || op == 3:
			l := g.labels[rnd.Intn(len(g.labels))]
			n := copyNode(pend.nodes[node])
			had := n.labels[l]
			var got int
			var err error
			if op == 2 {
				got, err = tx.AddLabels(node, []catalog.LabelID{l, l})
				n.labels[l] = true
			} else {
				got, err = tx.RemoveLabels(node, []catalog.LabelID{l})
				delete(n.labels, l)
			}
			want := 0
			if had == (op == 3) {
				want = 1
			}
			if err != nil || got != want {
				t.Fatalf("label change %d on node %d: got %d, %v; want %d", op, node, got, err, want)
			}
			pend.nodes[node] = n
		case op == 4 && len(relIDs) > 0:
			rel := relIDs[rnd.Intn(len(relIDs))]
			ok, err := tx.DeleteRel(rel)
			if err != nil || !ok {
				t.Fatalf("DeleteRel %d: %v, %v", rel, ok, err)
			}
			delete(pend.rels, rel)
			if ok, _ := tx.DeleteRel(rel); ok {
				t.Fatalf("DeleteRel %d twice deleted it twice", rel)
			}
		case op == 5 || op == 6:
			var attached []uint64
			for id, r := range pend.rels {
				if r.src == node || r.dst == node {
					attached = append(attached, id)
				}
			}
			detach := op == 6
			ok, nrels, err := tx.DeleteNode(node, detach)
			if len(attached) > 0 && !detach {
				if err == nil {
					t.Fatalf("DeleteNode %d with %d relationships succeeded", node, len(attached))
				}
				continue
			}
			if err != nil || !ok || nrels != len(attached) {
				t.Fatalf("DeleteNode %d: %v %d %v, want %d relationships", node, ok, nrels, err, len(attached))
			}
			for _, id := range attached {
				delete(pend.rels, id)
			}
			delete(pend.nodes, node)
		}
	}
}

func copyNode(n *mNode) *mNode {
	return &mNode{labels: maps.Clone(n.labels), props: maps.Clone(n.props)}
}

// compare checks everything a Reader exposes against the model.
func compare(t *testing.T, what string, r Reader, m *model, cat *catalog.Catalog) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s (ts %d): %s", what, r.TS(), fmt.Sprintf(format, args...))
	}
	if r.NodeCount() != int64(len(m.nodes)) || r.RelCount() != int64(len(m.rels)) {
		fail("counts %d/%d, model %d/%d", r.NodeCount(), r.RelCount(), len(m.nodes), len(m.rels))
	}
	bound := r.NodeIDBound()
	if r.LiveNodes().GetCardinality() != uint64(len(m.nodes)) {
		fail("live cardinality %d", r.LiveNodes().GetCardinality())
	}
	var labels []catalog.LabelID
	for id, n := range m.nodes {
		if id >= bound || !r.LiveNodes().Contains(uint32(id)) {
			fail("node %d not live (bound %d)", id, bound)
		}
		labels = r.AppendNodeLabels(labels[:0], id)
		var want []catalog.LabelID
		for l := range n.labels {
			want = append(want, l)
		}
		slices.Sort(want)
		if !slices.Equal(labels, want) {
			fail("node %d labels %v, want %v", id, labels, want)
		}
		got := map[catalog.KeyID]vector.Value{}
		last := catalog.KeyID(0)
		r.NodeProps(id, func(k catalog.KeyID, v vector.Value) {
			if len(got) > 0 && k <= last {
				fail("NodeProps out of key order")
			}
			last = k
			got[k] = v
		})
		if !reflect.DeepEqual(got, n.props) {
			fail("node %d props %v, want %v", id, got, n.props)
		}
	}
	for _, l := range cat.Labels() {
		b := r.LabelNodes(l)
		n := 0
		for id, node := range m.nodes {
			if node.labels[l] {
				n++
				if !b.Contains(uint32(id)) || !r.HasLabel(id, l) {
					fail("label %d misses node %d", l, id)
				}
			}
		}
		if b.GetCardinality() != uint64(n) {
			fail("label %d has %d nodes, want %d", l, b.GetCardinality(), n)
		}
	}
	ids := make([]uint64, 0, bound+3)
	for id := uint64(0); id < bound+3; id++ {
		ids = append(ids, id)
	}
	for _, k := range cat.Keys() {
		nodeVals := func(id uint64) vector.Value {
			if n := m.nodes[id]; n != nil {
				return n.props[k]
			}
			return nil
		}
		comparePropCol(t, what+fmt.Sprintf(" node key %d", k), r.NodePropType(k), modelType(len(m.nodes), func(yield func(vector.Value)) {
			for _, n := range m.nodes {
				yield(n.props[k])
			}
		}), ids, nodeVals, func(ids *vector.Vector, sel []int32, n int, out *vector.Vector) {
			r.GatherNodeProp(k, ids, sel, n, out)
		}, vector.Node)
	}
	var relBound uint64
	for id, rel := range m.rels {
		relBound = max(relBound, id+1)
		ty, src, dst, ok := r.Rel(id)
		if !ok || ty != rel.t || src != rel.src || dst != rel.dst {
			fail("rel %d = %d %d→%d %v, want %d %d→%d", id, ty, src, dst, ok, rel.t, rel.src, rel.dst)
		}
		got := map[catalog.KeyID]vector.Value{}
		r.RelProps(id, func(k catalog.KeyID, v vector.Value) { got[k] = v })
		if !reflect.DeepEqual(got, rel.props) {
			fail("rel %d props %v, want %v", id, got, rel.props)
		}
	}
	for id := uint64(0); id < relBound+3; id++ {
		if _, ok := m.rels[id]; !ok {
			if _, _, _, ok := r.Rel(id); ok {
				fail("rel %d exists, model has none", id)
			}
		}
	}
	rids := make([]uint64, relBound+2)
	for i := range rids {
		rids[i] = uint64(i)
	}
	for _, k := range cat.Keys() {
		relVals := func(id uint64) vector.Value {
			if rel := m.rels[id]; rel != nil {
				return rel.props[k]
			}
			return nil
		}
		comparePropCol(t, what+fmt.Sprintf(" rel key %d", k), r.RelPropType(k), modelType(len(m.rels), func(yield func(vector.Value)) {
			for _, rel := range m.rels {
				yield(rel.props[k])
			}
		}), rids, relVals, func(ids *vector.Vector, sel []int32, n int, out *vector.Vector) {
			r.GatherRelProp(k, ids, sel, n, out)
		}, vector.Rel)
	}
	// Adjacency per type and direction, as sorted (neighbour, rel) pairs.
	type pair struct{ nbr, rel uint64 }
	var nbrs, rels []uint64
	for _, ty := range cat.Types() {
		want := [2]map[uint64][]pair{{}, {}}
		for id, rel := range m.rels {
			if rel.t == ty {
				want[Outgoing][rel.src] = append(want[Outgoing][rel.src], pair{rel.dst, id})
				want[Incoming][rel.dst] = append(want[Incoming][rel.dst], pair{rel.src, id})
			}
		}
		for d := Outgoing; d <= Incoming; d++ {
			a := r.Adjacency(ty, d)
			if a == nil {
				if len(want[d]) != 0 {
					fail("type %d %s adjacency nil", ty, d)
				}
				continue
			}
			for id := range m.nodes {
				nbrs, rels = a.AppendNeighbors(nbrs[:0], rels[:0], id)
				var got []pair
				for i := range nbrs {
					got = append(got, pair{nbrs[i], rels[i]})
				}
				cmp := func(a, b pair) int {
					if a.nbr != b.nbr {
						return int(a.nbr) - int(b.nbr)
					}
					return int(a.rel) - int(b.rel)
				}
				slices.SortFunc(got, cmp)
				w := slices.Clone(want[d][id])
				slices.SortFunc(w, cmp)
				if !slices.Equal(got, w) || a.Degree(id) != len(w) {
					fail("type %d %s node %d: %v, want %v", ty, d, id, got, w)
				}
			}
		}
	}
}

func modelType(_ int, each func(func(vector.Value))) vector.Type {
	var counts [numTypes]int64
	each(func(v vector.Value) {
		if v != nil {
			counts[vector.TypeOf(v)]++
		}
	})
	return columnType(&counts)
}

// comparePropCol gathers a column in Capacity-sized batches, dense and
// with a sparse selection, with null id rows, as its own type and as Any.
func comparePropCol(t *testing.T, what string, got, want vector.Type, ids []uint64,
	val func(uint64) vector.Value, gather func(*vector.Vector, []int32, int, *vector.Vector), idType vector.Type) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: type %s, want %s", what, got, want)
	}
	for _, outType := range []vector.Type{got, vector.Any} {
		for start := 0; start < len(ids); start += vector.Capacity {
			n := min(vector.Capacity, len(ids)-start)
			idv := vector.New(idType, vector.Capacity)
			copy(idv.IDs, ids[start:start+n])
			nullRow := -1
			if start%3 == 0 {
				nullRow = n / 2
				idv.SetNull(nullRow)
			}
			for _, sparse := range []bool{false, true} {
				out := vector.New(outType, vector.Capacity)
				var sel []int32
				if sparse {
					for r := 0; r < n; r += 3 {
						sel = append(sel, int32(r))
					}
				}
				gather(idv, sel, n, out)
				check := func(r int) {
					w := val(ids[start+r])
					if r == nullRow {
						w = nil
					}
					if g := out.Get(r); !valEqual(g, w) {
						t.Fatalf("%s: gather(%s, sparse=%v) of id %d = %#v, want %#v", what, outType, sparse, ids[start+r], g, w)
					}
				}
				if sparse {
					for _, r := range sel {
						check(int(r))
					}
				} else {
					for r := 0; r < n; r++ {
						check(r)
					}
				}
			}
		}
	}
}

// valEqual is reflect.DeepEqual with a fast path for scalars.
func valEqual(a, b vector.Value) bool {
	switch a.(type) {
	case nil, bool, int64, float64, string:
		return a == b
	}
	return reflect.DeepEqual(a, b)
}
