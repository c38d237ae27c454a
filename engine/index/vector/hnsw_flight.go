package vectorindex

import "slices"

// Inserts running side by side cannot see each other: each searches the
// graph as it was before the other linked. On a line, slot k+1 then
// links to k-1 and never to k, which was being inserted beside it. Build
// after build such misses split the line into strands (the even slots
// and the odd ones) that meet only far apart, and a search that walks
// down one strand never reaches the nearest point on the other.
//
// So each insert notes the inserts already running when it began, and
// offers them to its neighbour selection on every layer as if its search
// had found them. Of two overlapping inserts, the later to begin sees the
// earlier in its note; when it keeps it, its link to it reaches the
// earlier's list (merged by setOwnList if that one is still searching).

// enterFlight records s as being inserted and copies the slots already
// being inserted into sr.flight.
func (g *graph) enterFlight(sr *searcher, s int32) {
	g.flightMu.Lock()
	sr.flight = append(sr.flight[:0], g.inFlight...)
	g.inFlight = append(g.inFlight, s)
	g.flightMu.Unlock()
}

// leaveFlight records that s is linked.
func (g *graph) leaveFlight(s int32) {
	g.flightMu.Lock()
	if i := slices.Index(g.inFlight, s); i >= 0 {
		g.inFlight = slices.Delete(g.inFlight, i, i+1)
	}
	g.flightMu.Unlock()
}

// keepUnseen adds to sr.kept (the neighbours s keeps on layer l, chosen
// from w, its search's result) each slot of sr.flight that reaches layer
// l and that the search did not visit, when it lies within the search's
// horizon (nearer than the farthest of w, or anywhere while w holds fewer
// than ef_construction) and no kept neighbour nearer to s is nearer to it
// (the selection's heuristic). Such a slot is added to what the search
// chose, never in place of it: it may not be linked into the graph yet,
// and s must stay reachable through the neighbours it found.
func (g *graph) keepUnseen(sr *searcher, q probe, w []cand, l int) {
	chosen := len(sr.kept)
	for _, x := range sr.flight {
		if int(g.levels[x]) < l || sr.visited[x] == sr.gen {
			continue
		}
		d := g.dist(q, x)
		if len(w) >= g.efc && d >= w[len(w)-1].d {
			continue
		}
		v := g.probe(x)
		if !slices.ContainsFunc(sr.kept[:chosen], func(k cand) bool { return k.d < d && g.dist(v, k.s) < d }) {
			sr.kept = append(sr.kept, cand{d, x})
		}
	}
}
