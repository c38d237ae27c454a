package engine_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// modelEntity is an entity as the change stream describes it.
type modelEntity struct {
	labels []string // sorted (nodes)
	typ    string
	start  uint64
	end    uint64
	props  map[string]vector.Value
}

// changeModel replays a change stream: every change must start from what
// the stream said before (exactly once, before-images right).
type changeModel struct {
	nodes, rels map[uint64]modelEntity
}

func newChangeModel() *changeModel {
	return &changeModel{nodes: map[uint64]modelEntity{}, rels: map[uint64]modelEntity{}}
}

func propMap(ps []engine.Property) map[string]vector.Value {
	if ps == nil {
		return nil
	}
	m := map[string]vector.Value{}
	for _, p := range ps {
		m[p.Key] = p.Value
	}
	return m
}

func sortedCopy(l []string) []string {
	out := append([]string{}, l...)
	sort.Strings(out)
	return out
}

func (m *changeModel) apply(c *engine.Change) error {
	set := m.nodes
	if c.Entity == engine.ChangeRelationship {
		set = m.rels
	}
	cur, exists := set[c.ID]
	switch c.Op {
	case engine.ChangeCreated:
		if exists || c.Before != nil || c.After == nil {
			return fmt.Errorf("create of %v %d: exists=%v before=%v after=%v", c.Entity, c.ID, exists, c.Before, c.After)
		}
	default:
		if !exists {
			return fmt.Errorf("%v of %v %d, which the stream never created", c.Op, c.Entity, c.ID)
		}
		if !reflect.DeepEqual(cur.props, propMap(c.Before)) {
			return fmt.Errorf("%v of %v %d: before %v, the stream last said %v", c.Op, c.Entity, c.ID, propMap(c.Before), cur.props)
		}
		if c.Entity == engine.ChangeNode {
			before := sortedCopy(c.Labels)
			if c.Op == engine.ChangeUpdated {
				before = nil
				for _, l := range c.Labels {
					if !slices.Contains(c.LabelsAdded, l) {
						before = append(before, l)
					}
				}
				before = sortedCopy(append(before, c.LabelsRemoved...))
			}
			if !slices.Equal(before, cur.labels) {
				return fmt.Errorf("%v of node %d: labels before %v, the stream last said %v", c.Op, c.ID, before, cur.labels)
			}
		} else if cur.typ != c.Type || cur.start != c.Start || cur.end != c.End {
			return fmt.Errorf("relationship %d changed its type or endpoints", c.ID)
		}
	}
	if c.Op == engine.ChangeDeleted {
		if c.After != nil {
			return fmt.Errorf("delete of %v %d has an after-image", c.Entity, c.ID)
		}
		delete(set, c.ID)
		return nil
	}
	set[c.ID] = modelEntity{labels: sortedCopy(c.Labels), typ: c.Type, start: c.Start, end: c.End, props: propMap(c.After)}
	return nil
}

// dbState reads the database into the model's shape.
func dbState(t *testing.T, db *engine.DB) *changeModel {
	t.Helper()
	m := newChangeModel()
	for _, row := range algoRows(t, db, "MATCH (n) RETURN id(n), labels(n), properties(n)", nil) {
		var labels []string
		for _, l := range row[1].([]vector.Value) {
			labels = append(labels, l.(string))
		}
		m.nodes[uint64(row[0].(int64))] = modelEntity{labels: sortedCopy(labels), props: row[2].(map[string]vector.Value)}
	}
	for _, row := range algoRows(t, db, "MATCH (a)-[r]->(b) RETURN id(r), type(r), id(a), id(b), properties(r)", nil) {
		m.rels[uint64(row[0].(int64))] = modelEntity{labels: []string{}, typ: row[1].(string),
			start: uint64(row[2].(int64)), end: uint64(row[3].(int64)), props: row[4].(map[string]vector.Value)}
	}
	return m
}

// collect reads a feed until a batch creates an :End node.
func collect(ctx context.Context, f *engine.ChangeFeed) ([]engine.ChangeBatch, error) {
	var out []engine.ChangeBatch
	for {
		b, err := f.Next(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, b)
		for _, c := range b.Changes {
			if c.Op == engine.ChangeCreated && slices.Contains(c.Labels, "End") {
				return out, nil
			}
		}
	}
}

// Concurrent writers (auto-commit statements, explicit transactions that
// commit, roll back or fail on conflicts) and several subscribers: every
// subscriber without patterns sees the same stream, in strictly rising
// LSN order; replaying it reproduces the database exactly, each change
// starting from the state the stream last gave (so none is lost,
// repeated or reordered, and every before-image is right); nothing of a
// rolled-back or failed transaction shows; pattern subscribers see
// exactly the changes their patterns select.
func TestChangeFeedMatchesCommits(t *testing.T) {
	db := openTestDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	mustQuery(t, db, "CREATE (:Hot {id: 0, c: 0})", nil) // before the feeds: not in the stream

	pA, err := engine.ParseChangePattern("(:A)")
	if err != nil {
		t.Fatal(err)
	}
	pR, _ := engine.ParseChangePattern("()-[:R]->()")
	pEnd, _ := engine.ParseChangePattern("(:End)")
	var feeds []*engine.ChangeFeed
	for _, pats := range [][]*engine.ChangePattern{nil, nil, nil, {pA, pEnd}, {pR, pEnd}} {
		f, err := db.SubscribeChanges(engine.SubscribeOptions{Patterns: pats, Buffer: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		feeds = append(feeds, f)
	}
	got := make([][]engine.ChangeBatch, len(feeds))
	errc := make([]error, len(feeds))
	var readers sync.WaitGroup
	for i, f := range feeds {
		readers.Add(1)
		go func() {
			defer readers.Done()
			got[i], errc[i] = collect(ctx, f)
		}()
	}

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	const writers, steps = 4, 40
	var mu sync.Mutex
	committed := map[string]bool{} // tx markers of committed explicit transactions
	var wg sync.WaitGroup
	werr := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed + int64(w)))
			if err := changeWriter(ctx, db, w, steps, rnd, &mu, committed); err != nil {
				werr <- err
			}
		}(w)
	}
	wg.Wait()
	close(werr)
	for err := range werr {
		t.Fatal(err)
	}
	mustQuery(t, db, "CREATE (:End)", nil)
	readers.Wait()
	for i, err := range errc {
		if err != nil {
			t.Fatalf("feed %d: %v", i, err)
		}
	}

	// The three unfiltered feeds agree, commit by commit.
	for i := 1; i < 3; i++ {
		if !reflect.DeepEqual(got[0], got[i]) {
			t.Fatalf("feeds 0 and %d differ: %d and %d batches", i, len(got[0]), len(got[i]))
		}
	}
	m := newChangeModel()
	hot := dbState(t, db) // the :Hot node predates the feeds
	for id, e := range hot.nodes {
		if slices.Contains(e.labels, "Hot") {
			hotBefore := e
			hotBefore.props = map[string]vector.Value{"id": int64(0), "c": int64(0)}
			m.nodes[id] = hotBefore
		}
	}
	var lastLSN, lastTS uint64
	markers := map[string]bool{}
	var wantA, wantR []engine.Change
	for _, b := range got[0] {
		if b.LSN <= lastLSN || b.TS <= lastTS {
			t.Fatalf("batch lsn %d ts %d after lsn %d ts %d", b.LSN, b.TS, lastLSN, lastTS)
		}
		lastLSN, lastTS = b.LSN, b.TS
		if len(b.Changes) == 0 || b.Bulk != nil {
			t.Fatalf("batch at lsn %d: %d changes, bulk %v", b.LSN, len(b.Changes), b.Bulk)
		}
		for i := range b.Changes {
			c := &b.Changes[i]
			if err := m.apply(c); err != nil {
				t.Fatalf("lsn %d: %v", b.LSN, err)
			}
			for _, ps := range [][]engine.Property{c.Before, c.After} {
				for _, p := range ps {
					if p.Key == "rb" {
						t.Fatalf("a change of a rolled-back transaction arrived: %+v", c)
					}
					if p.Key == "tx" && c.Op == engine.ChangeCreated {
						if markers[p.Value.(string)] {
							t.Fatalf("transaction %v arrived twice", p.Value)
						}
						markers[p.Value.(string)] = true
					}
				}
			}
			isA := c.Entity == engine.ChangeNode && (slices.Contains(c.Labels, "A") || slices.Contains(c.LabelsRemoved, "A") || slices.Contains(c.Labels, "End"))
			if isA {
				wantA = append(wantA, *c)
			}
			if (c.Entity == engine.ChangeRelationship && c.Type == "R") || (c.Entity == engine.ChangeNode && slices.Contains(c.Labels, "End")) {
				wantR = append(wantR, *c)
			}
		}
	}
	final := dbState(t, db)
	if !reflect.DeepEqual(m.nodes, final.nodes) || !reflect.DeepEqual(m.rels, final.rels) {
		t.Fatalf("replaying the stream gives %d nodes %d relationships, the database has %d and %d\nstream: %v\ndb:     %v",
			len(m.nodes), len(m.rels), len(final.nodes), len(final.rels), m.nodes, final.nodes)
	}
	if !maps.Equal(markers, committed) {
		t.Fatalf("transactions in the stream %v, committed %v", markers, committed)
	}
	for i, want := range [][]engine.Change{wantA, wantR} {
		var have []engine.Change
		for _, b := range got[3+i] {
			have = append(have, b.Changes...)
		}
		if !reflect.DeepEqual(have, want) {
			t.Fatalf("pattern feed %d: %d changes, want %d", i, len(have), len(want))
		}
	}
	t.Logf("%d commits in the stream, %d explicit transactions committed, %d nodes, %d relationships, %d (:A) and %d (:R) changes",
		len(got[0]), len(committed), len(final.nodes), len(final.rels), len(wantA), len(wantR))
	if len(wantA) == 0 || len(wantR) == 0 {
		t.Fatal("the workload made no changes the patterns select")
	}
}

// changeWriter runs steps random writes as writer w; explicit
// transactions it commits are recorded in committed by their tx marker.
func changeWriter(ctx context.Context, db *engine.DB, w, steps int, rnd *rand.Rand, mu *sync.Mutex, committed map[string]bool) error {
	run := func(q string, p engine.Params) error {
		res, err := db.Query(ctx, q, p)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		_, err = drain(res)
		return err
	}
	keys := []int64{-1} // the keys of the nodes this writer created
	for i := 0; i < steps; i++ {
		pick := func() int64 { return keys[rnd.Intn(len(keys))] }
		p := engine.Params{"w": int64(w), "k": int64(i), "j": pick(), "j2": pick(), "x": int64(rnd.Intn(100))}
		var err error
		switch op := rnd.Intn(12); op {
		case 0, 1, 2:
			err = run("CREATE (:A {w: $w, k: $k, v: 0})", p)
			keys = append(keys, int64(i))
		case 3:
			err = run("MATCH (n {w: $w, k: $j}) SET n.v = coalesce(n.v, 0) + 1, n.s = toString($x)", p)
		case 4, 5:
			err = run("MATCH (a {w: $w, k: $j}), (b {w: $w, k: $j2}) CREATE (a)-[:R {x: $x}]->(b)", p)
		case 6:
			if rnd.Intn(2) == 0 {
				err = run("MATCH (n {w: $w, k: $j}) SET n:B REMOVE n:A", p)
			} else {
				err = run("MATCH (n {w: $w, k: $j}) SET n:A, n.v = n.v", p)
			}
		case 7:
			err = run("MATCH (n {w: $w, k: $j}) DETACH DELETE n", p)
		case 8:
			err = run("MATCH ({w: $w, k: $j})-[r:R]->() SET r.x = $x, r.y = 'y'", p)
		case 9:
			err = run("MATCH ({w: $w, k: $j})-[r:R]->() DELETE r", p)
		default:
			err = explicitChange(ctx, db, w, i, rnd, mu, committed)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// explicitChange: an explicit transaction that creates a node, bumps
// the shared :Hot node (so concurrent ones conflict) and commits, or
// rolls back.
func explicitChange(ctx context.Context, db *engine.DB, w, i int, rnd *rand.Rand, mu *sync.Mutex, committed map[string]bool) error {
	tx, err := db.BeginTransaction(engine.TransactionOptions{Isolation: engine.RepeatableRead})
	if err != nil {
		return err
	}
	marker := fmt.Sprintf("w%d-%d", w, i)
	rollback := rnd.Intn(3) == 0
	props := "{tx: $m, w: $w, k: $k}"
	if rollback {
		props = "{tx: $m, rb: true}"
	}
	for _, q := range []string{"CREATE (:C " + props + ")", "MATCH (h:Hot) SET h.c = h.c + 1"} {
		res, err := tx.Query(ctx, q, engine.Params{"m": marker, "w": int64(w), "k": int64(1000 + i)})
		if err == nil {
			_, err = drain(res)
		}
		if err != nil {
			tx.Rollback()
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if rollback {
		_, err := tx.Rollback()
		return err
	}
	if _, err := tx.Commit(); err != nil {
		if e, ok := engine.AsError(err); ok && e.Code == engine.CodeSerialization {
			return nil // lost a conflict: must not show in the stream
		}
		return err
	}
	mu.Lock()
	committed[marker] = true
	mu.Unlock()
	return nil
}

// A feed that is not read is dropped with ErrChangeFeedOverflow once its
// buffer is full, while writers go on; a feed with room for everything
// gets everything.
func TestChangeFeedSlowConsumerDropped(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	slow, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 50})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	fast, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 300}) // room for all: it reads, however slowly the race detector makes it
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	const commits = 300
	var n int
	done := make(chan error, 1)
	go func() {
		for n < commits {
			b, err := fast.Next(t.Context())
			if err != nil {
				done <- err
				return
			}
			n += len(b.Changes)
		}
		done <- nil
	}()
	start := time.Now()
	for i := 0; i < commits; i++ {
		mustQuery(t, db, "CREATE (:N {i: $i})", engine.Params{"i": int64(i)})
	}
	t.Logf("%d commits in %v with a stalled subscriber", commits, time.Since(start))
	if err := <-done; err != nil {
		t.Fatalf("the reading feed: %v after %d changes", err, n)
	}
	// The stalled feed says it was dropped.
	var got int
	for {
		b, err := slow.Next(t.Context())
		if errors.Is(err, engine.ErrChangeFeedOverflow) {
			break
		}
		if err != nil {
			t.Fatalf("stalled feed: %v", err)
		}
		got += len(b.Changes)
	}
	if got > 50 {
		t.Fatalf("the stalled feed delivered %d changes past its buffer of 50", got)
	}
	if slow.Queued() != 0 {
		t.Fatal("an overflowed feed keeps its queue")
	}
}
