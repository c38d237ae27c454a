package tck

import (
	"fmt"
	"sort"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// graphState is what side effects are measured on: node and relationship
// ids, the set of label names some node carries, and every property as an
// (entity, key, value) triple.
type graphState struct {
	nodes  map[uint64]bool
	rels   map[uint64]bool
	labels map[string]bool
	props  map[string]bool
}

func captureState(db *engine.DB) *graphState {
	g := &graphState{nodes: map[uint64]bool{}, rels: map[uint64]bool{}, labels: map[string]bool{}, props: map[string]bool{}}
	c := &canon{}
	db.Inspect(func(n engine.NodeState) {
		g.nodes[n.ID] = true
		for _, l := range n.Labels {
			g.labels[l] = true
		}
		for k, v := range n.Props {
			g.props[fmt.Sprintf("n%d.%s=%s", n.ID, k, c.value(v))] = true
		}
	}, func(r engine.RelState) {
		g.rels[r.ID] = true
		for k, v := range r.Props {
			g.props[fmt.Sprintf("r%d.%s=%s", r.ID, k, c.value(v))] = true
		}
	})
	return g
}

// sideEffects are the TCK's counters, keyed as in its tables (+nodes,
// -labels, ...).
type sideEffects map[string]int

func diffStates(before, after *graphState) sideEffects {
	se := sideEffects{}
	count := func(plus, minus string, b, a map[uint64]bool) {
		for k := range a {
			if !b[k] {
				se[plus]++
			}
		}
		for k := range b {
			if !a[k] {
				se[minus]++
			}
		}
	}
	count("+nodes", "-nodes", before.nodes, after.nodes)
	count("+relationships", "-relationships", before.rels, after.rels)
	countS := func(plus, minus string, b, a map[string]bool) {
		for k := range a {
			if !b[k] {
				se[plus]++
			}
		}
		for k := range b {
			if !a[k] {
				se[minus]++
			}
		}
	}
	countS("+labels", "-labels", before.labels, after.labels)
	countS("+properties", "-properties", before.props, after.props)
	return se
}

// sideEffectKeys are the counters a side-effects table may name.
var sideEffectKeys = []string{"+nodes", "-nodes", "+relationships", "-relationships", "+labels", "-labels", "+properties", "-properties"}

// checkSideEffects compares got against want; counters want does not name
// must be zero.
func checkSideEffects(got, want sideEffects) error {
	var bad []string
	for _, k := range sideEffectKeys {
		if got[k] != want[k] {
			bad = append(bad, fmt.Sprintf("%s %d (want %d)", k, got[k], want[k]))
		}
	}
	for k := range want {
		found := false
		for _, known := range sideEffectKeys {
			found = found || k == known
		}
		if !found {
			return fmt.Errorf("unknown side effect %q", k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("side effects: %s", strings.Join(bad, ", "))
	}
	return nil
}
