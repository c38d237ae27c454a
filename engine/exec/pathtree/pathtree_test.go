package pathtree

import (
	"fmt"
	"slices"
	"testing"
)

// TestWalk enumerates the paths back to the origin of a side whose nodes
// were reached by several parents (a diamond, and a node two levels down
// with a parent on each branch), each path once, and resumes after each.
func TestWalk(t *testing.T) {
	sd := NewSide()
	sd.Reset(1)
	reach := func(v uint64, lvl int32, hops ...Hop) {
		sd.Lvl[v] = lvl
		sd.Pars[v] = append(sd.Pars[v], hops...)
	}
	reach(2, 1, Hop{1, 10})
	reach(3, 1, Hop{1, 11}, Hop{1, 12}) // two parallel relationships
	reach(4, 2, Hop{2, 13}, Hop{3, 14})
	var w Walk
	walk := func(v uint64) []string {
		var got []string
		w.Reset(&sd, v)
		for w.Next() {
			got = append(got, fmt.Sprint(w.Nodes, w.Rels))
		}
		return got
	}
	want := []string{"[4 2 1] [13 10]", "[4 3 1] [14 11]", "[4 3 1] [14 12]"}
	if got := walk(4); !slices.Equal(got, want) {
		t.Errorf("paths back from 4: %v, want %v", got, want)
	}
	if got := walk(1); !slices.Equal(got, []string{"[1] []"}) {
		t.Errorf("paths back from the origin: %v", got)
	}
	// Keep rejects relationship 11 and the hop from node 2: the walk
	// never takes them, and a node whose hops all fail leads nowhere.
	w.Keep = func(h Hop) bool { return h.Rel != 11 && h.From != 2 }
	if got := walk(4); !slices.Equal(got, []string{"[4 3 1] [14 12]"}) {
		t.Errorf("paths back from 4 with Keep: %v", got)
	}
	w.Keep = func(h Hop) bool { return h.Rel != 10 }
	if got := walk(2); len(got) != 0 {
		t.Errorf("paths back from 2 without its one hop: %v", got)
	}
	w.Keep = nil
	// A side reset for a new search forgets the old one's nodes.
	sd.Reset(7)
	if len(sd.Lvl) != 1 || len(sd.Pars) != 0 || !slices.Equal(sd.Frontier, []uint64{7}) || sd.Depth != 0 {
		t.Errorf("after Reset: %d levels, %d parents, frontier %v, depth %d", len(sd.Lvl), len(sd.Pars), sd.Frontier, sd.Depth)
	}
}
