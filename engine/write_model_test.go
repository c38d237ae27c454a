package engine_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

var writeSeed = flag.Int64("write.seed", 0, "rerun TestWriteModel with this seed only")

// TestWriteModel runs random sequences of CREATE, SET, REMOVE, DELETE,
// DETACH DELETE and MERGE statements against the engine and against a
// naive map-based graph, and compares the two after every statement by
// read queries (every node with labels and properties, every relationship
// with endpoints, type and properties), checking the store's invariants
// each time, with compaction forced at random points. The seed is
// logged.
func TestWriteModel(t *testing.T) {
	var seeds []int64
	if *writeSeed != 0 {
		seeds = []int64{*writeSeed}
	} else {
		base := time.Now().UnixNano()
		for i := int64(0); i < 4; i++ {
			seeds = append(seeds, base+i)
		}
	}
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Logf("seed %d (rerun: go test ./engine/ -run TestWriteModel -write.seed %d)", seed, seed)
			runWriteModel(t, seed, 150)
		})
	}
}

type wNode struct {
	labels map[string]bool
	props  map[string]vector.Value
}

type wRel struct {
	typ      string
	src, dst int64
	props    map[string]vector.Value
}

type wModel struct {
	nodes map[int64]*wNode
	rels  map[int64]*wRel
}

var (
	wLabels = []string{"A", "B", "C"}
	wTypes  = []string{"R", "S"}
	wKeys   = []string{"k", "m", "s"}
)

// wValue is a random property value (nil sometimes: SET to null).
func wValue(rnd *rand.Rand) vector.Value {
	switch rnd.Intn(6) {
	case 0:
		return nil
	case 1:
		return fmt.Sprintf("v%d", rnd.Intn(4))
	case 2:
		return rnd.Intn(2) == 0
	case 3:
		return []vector.Value{int64(rnd.Intn(3)), int64(rnd.Intn(3))}
	}
	return int64(rnd.Intn(4))
}

func wMap(rnd *rand.Rand) map[string]vector.Value {
	m := map[string]vector.Value{}
	for _, k := range wKeys {
		if rnd.Intn(2) == 0 {
			m[k] = wValue(rnd)
		}
	}
	return m
}

func runWriteModel(t *testing.T, seed int64, steps int) {
	rnd := rand.New(rand.NewSource(seed))
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := &wModel{nodes: map[int64]*wNode{}, rels: map[int64]*wRel{}}
	exec := func(q string, params engine.Params) ([][]vector.Value, error) {
		res, err := db.Query(context.Background(), q, params)
		if err != nil {
			return nil, err
		}
		defer res.Close()
		var rows [][]vector.Value
		for {
			b, err := res.Next()
			if err != nil {
				return nil, err
			}
			if b == nil {
				return rows, nil
			}
			for i := 0; i < b.Rows(); i++ {
				var row []vector.Value
				for _, c := range b.Cols {
					row = append(row, c.Get(b.Row(i)))
				}
				rows = append(rows, row)
			}
		}
	}
	must := func(q string, params engine.Params) [][]vector.Value {
		t.Helper()
		rows, err := exec(q, params)
		if err != nil {
			t.Fatalf("%s %v: %v", q, params, err)
		}
		return rows
	}
	// Indexes are maintained by every write op; the store's Check (run
	// after each step) compares their entries with the node columns.
	for _, q := range []string{
		"CREATE INDEX FOR (n:A) ON (n.k)",
		"CREATE HASH INDEX FOR (n:B) ON (n.m)",
		"CREATE INDEX FOR (n:A) ON (n.k, n.s)",
	} {
		must(q, nil)
	}
	pickNode := func() (int64, bool) {
		ids := sortedKeys(m.nodes)
		if len(ids) == 0 {
			return 0, false
		}
		return ids[rnd.Intn(len(ids))], true
	}
	pickRel := func() (int64, bool) {
		ids := sortedKeys(m.rels)
		if len(ids) == 0 {
			return 0, false
		}
		return ids[rnd.Intn(len(ids))], true
	}
	for step := 0; step < steps; step++ {
		var what string
		switch op := rnd.Intn(15); op {
		case 0, 1: // CREATE a node
			l := wLabels[rnd.Intn(len(wLabels))]
			props := wMap(rnd)
			what = "create node"
			rows := must("CREATE (n:"+l+") SET n = $p RETURN id(n)", engine.Params{"p": props})
			id := rows[0][0].(int64)
			m.nodes[id] = &wNode{labels: map[string]bool{l: true}, props: nonNull(props)}
		case 2: // CREATE a relationship
			a, ok1 := pickNode()
			b, ok2 := pickNode()
			if !ok1 || !ok2 {
				continue
			}
			ty := wTypes[rnd.Intn(len(wTypes))]
			props := wMap(rnd)
			what = "create relationship"
			rows := must("MATCH (a), (b) WHERE id(a) = $a AND id(b) = $b CREATE (a)-[r:"+ty+"]->(b) SET r += $p RETURN id(r)",
				engine.Params{"a": a, "b": b, "p": props})
			m.rels[rows[0][0].(int64)] = &wRel{typ: ty, src: a, dst: b, props: nonNull(props)}
		case 3: // SET n.k = v
			id, ok := pickNode()
			if !ok {
				continue
			}
			k, v := wKeys[rnd.Intn(len(wKeys))], wValue(rnd)
			what = "set node property"
			must("MATCH (n) WHERE id(n) = $id SET n."+k+" = $v", engine.Params{"id": id, "v": v})
			setProp(m.nodes[id].props, k, v)
		case 4: // SET n = map / n += map
			id, ok := pickNode()
			if !ok {
				continue
			}
			p := wMap(rnd)
			if rnd.Intn(2) == 0 {
				what = "replace node properties"
				must("MATCH (n) WHERE id(n) = $id SET n = $p", engine.Params{"id": id, "p": p})
				m.nodes[id].props = nonNull(p)
			} else {
				what = "merge node properties"
				must("MATCH (n) WHERE id(n) = $id SET n += $p", engine.Params{"id": id, "p": p})
				for k, v := range p {
					setProp(m.nodes[id].props, k, v)
				}
			}
		case 5: // labels
			id, ok := pickNode()
			if !ok {
				continue
			}
			l := wLabels[rnd.Intn(len(wLabels))]
			if rnd.Intn(2) == 0 {
				what = "set label"
				must("MATCH (n) WHERE id(n) = $id SET n:"+l, engine.Params{"id": id})
				m.nodes[id].labels[l] = true
			} else {
				what = "remove label"
				must("MATCH (n) WHERE id(n) = $id REMOVE n:"+l, engine.Params{"id": id})
				delete(m.nodes[id].labels, l)
			}
		case 6: // REMOVE n.k
			id, ok := pickNode()
			if !ok {
				continue
			}
			k := wKeys[rnd.Intn(len(wKeys))]
			what = "remove property"
			must("MATCH (n) WHERE id(n) = $id REMOVE n."+k, engine.Params{"id": id})
			delete(m.nodes[id].props, k)
		case 7: // relationship property
			id, ok := pickRel()
			if !ok {
				continue
			}
			k, v := wKeys[rnd.Intn(len(wKeys))], wValue(rnd)
			what = "set relationship property"
			must("MATCH ()-[r]->() WHERE id(r) = $id SET r."+k+" = $v", engine.Params{"id": id, "v": v})
			setProp(m.rels[id].props, k, v)
		case 8: // DELETE r
			id, ok := pickRel()
			if !ok {
				continue
			}
			what = "delete relationship"
			must("MATCH ()-[r]->() WHERE id(r) = $id DELETE r", engine.Params{"id": id})
			delete(m.rels, id)
		case 9: // DELETE n / DETACH DELETE n
			id, ok := pickNode()
			if !ok {
				continue
			}
			detach := rnd.Intn(2) == 0
			var attached []int64
			for rid, r := range m.rels {
				if r.src == id || r.dst == id {
					attached = append(attached, rid)
				}
			}
			q := "MATCH (n) WHERE id(n) = $id DELETE n"
			if detach {
				q = "MATCH (n) WHERE id(n) = $id DETACH DELETE n"
			}
			what = q
			_, err := exec(q, engine.Params{"id": id})
			if !detach && len(attached) > 0 {
				if e, ok := engine.AsError(err); !ok || e.Code != "23000" {
					t.Fatalf("step %d: DELETE of a node with relationships: %v, want 23000", step, err)
				}
				break
			}
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, q, err)
			}
			for _, rid := range attached {
				delete(m.rels, rid)
			}
			delete(m.nodes, id)
		case 10, 11: // MERGE (n:L {k: v}) ON CREATE / ON MATCH
			l := wLabels[rnd.Intn(len(wLabels))]
			v := int64(rnd.Intn(3))
			what = "merge node"
			rows := must("MERGE (n:"+l+" {k: $v}) ON CREATE SET n.s = 'new' ON MATCH SET n.m = true RETURN id(n)",
				engine.Params{"v": v})
			var matched []int64
			for _, id := range sortedKeys(m.nodes) {
				n := m.nodes[id]
				if n.labels[l] && valueKey(n.props["k"]) == valueKey(v) {
					matched = append(matched, id)
				}
			}
			if len(matched) == 0 {
				if len(rows) != 1 {
					t.Fatalf("step %d: MERGE created %d rows", step, len(rows))
				}
				m.nodes[rows[0][0].(int64)] = &wNode{labels: map[string]bool{l: true},
					props: map[string]vector.Value{"k": v, "s": "new"}}
				break
			}
			var got []int64
			for _, r := range rows {
				got = append(got, r[0].(int64))
			}
			slices.Sort(got)
			if !slices.Equal(got, matched) {
				t.Fatalf("step %d: MERGE matched %v, model %v", step, got, matched)
			}
			for _, id := range matched {
				m.nodes[id].props["m"] = true
			}
		case 12: // a bulk SET over every node with a label
			l, k, v := wLabels[rnd.Intn(len(wLabels))], wKeys[rnd.Intn(len(wKeys))], wValue(rnd)
			what = "bulk set"
			must("MATCH (n:"+l+") SET n."+k+" = $v", engine.Params{"v": v})
			for _, n := range m.nodes {
				if n.labels[l] {
					setProp(n.props, k, v)
				}
			}
		case 13: // MERGE a relationship between two nodes
			a, ok1 := pickNode()
			b, ok2 := pickNode()
			if !ok1 || !ok2 {
				continue
			}
			what = "merge relationship"
			rows := must("MATCH (a), (b) WHERE id(a) = $a AND id(b) = $b MERGE (a)-[r:R]->(b) ON CREATE SET r.s = 'new' RETURN id(r)",
				engine.Params{"a": a, "b": b})
			var matched, got []int64
			for _, id := range sortedKeys(m.rels) {
				if r := m.rels[id]; r.typ == "R" && r.src == a && r.dst == b {
					matched = append(matched, id)
				}
			}
			for _, r := range rows {
				got = append(got, r[0].(int64))
			}
			slices.Sort(got)
			if len(matched) == 0 {
				if len(got) != 1 {
					t.Fatalf("step %d: MERGE of a relationship returned %v", step, got)
				}
				m.rels[got[0]] = &wRel{typ: "R", src: a, dst: b, props: map[string]vector.Value{"s": "new"}}
			} else if !slices.Equal(got, matched) {
				t.Fatalf("step %d: MERGE matched %v, model %v", step, got, matched)
			}
		case 14: // MERGE per UNWIND row: later rows see earlier rows' nodes
			var vs []vector.Value
			for i := rnd.Intn(4); i >= 0; i-- {
				vs = append(vs, int64(rnd.Intn(3)))
			}
			what = "unwind merge"
			rows := must("UNWIND $vs AS v MERGE (n:C {k: v}) RETURN v, id(n)", engine.Params{"vs": vs})
			// Replay on the model row by row; a row's output rows are the
			// nodes matching at that time.
			byV := map[int64][]int64{}
			for _, r := range rows {
				byV[r[0].(int64)] = append(byV[r[0].(int64)], r[1].(int64))
			}
			for _, vv := range vs {
				v := vv.(int64)
				found := false
				for _, n := range m.nodes {
					if n.labels["C"] && valueKey(n.props["k"]) == valueKey(v) {
						found = true
					}
				}
				if found {
					continue
				}
				created := int64(-1)
				for _, id := range byV[v] {
					if _, ok := m.nodes[id]; !ok {
						created = id
					}
				}
				if created < 0 {
					t.Fatalf("step %d: MERGE of k=%d created no node: rows %v", step, v, rows)
				}
				m.nodes[created] = &wNode{labels: map[string]bool{"C": true}, props: map[string]vector.Value{"k": v}}
			}
		}
		if what == "" {
			continue
		}
		if rnd.Intn(8) == 0 { // compaction at random points
			db.Compact()
			what += " + compaction"
		}
		if err := db.Check(); err != nil {
			t.Fatalf("step %d (%s): %v", step, what, err)
		}
		compareWriteModel(t, step, what, m, must)
	}
}

func sortedKeys[V any](m map[int64]V) []int64 {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func setProp(props map[string]vector.Value, k string, v vector.Value) {
	if v == nil {
		delete(props, k)
	} else {
		props[k] = v
	}
}

func nonNull(m map[string]vector.Value) map[string]vector.Value {
	out := map[string]vector.Value{}
	for k, v := range m {
		setProp(out, k, v)
	}
	return out
}

// valueKey renders a value canonically (maps by sorted key).
func valueKey(v vector.Value) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("%q", x)
	case []vector.Value:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = valueKey(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case map[string]vector.Value:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ":" + valueKey(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return fmt.Sprintf("%T:%v", v, v)
}

func compareWriteModel(t *testing.T, step int, what string, m *wModel, must func(string, engine.Params) [][]vector.Value) {
	t.Helper()
	var got, want []string
	for _, r := range must("MATCH (n) RETURN id(n), labels(n), properties(n)", nil) {
		labels := r[1].([]vector.Value)
		slices.SortFunc(labels, func(a, b vector.Value) int { return strings.Compare(a.(string), b.(string)) })
		got = append(got, fmt.Sprintf("%d %s %s", r[0], valueKey(labels), valueKey(r[2])))
	}
	for id, n := range m.nodes {
		var labels []vector.Value
		for _, l := range wLabels {
			if n.labels[l] {
				labels = append(labels, l)
			}
		}
		if labels == nil {
			labels = []vector.Value{}
		}
		want = append(want, fmt.Sprintf("%d %s %s", id, valueKey(labels), valueKey(n.props)))
	}
	for _, r := range must("MATCH (a)-[r]->(b) RETURN id(r), id(a), id(b), type(r), properties(r)", nil) {
		got = append(got, fmt.Sprintf("r%d %d->%d %s %s", r[0], r[1], r[2], r[3], valueKey(r[4])))
	}
	for id, r := range m.rels {
		want = append(want, fmt.Sprintf("r%d %d->%d %s %s", id, r.src, r.dst, r.typ, valueKey(r.props)))
	}
	// Counts through the label and type indexes agree too.
	for _, l := range wLabels {
		n := int64(0)
		for _, node := range m.nodes {
			if node.labels[l] {
				n++
			}
		}
		if c := must("MATCH (n:"+l+") RETURN count(n)", nil)[0][0].(int64); c != n {
			t.Fatalf("step %d (%s): %d nodes with label %s, model has %d", step, what, c, l, n)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Fatalf("step %d (%s): graph differs from the model\n got: %v\nwant: %v", step, what, got, want)
	}
}
