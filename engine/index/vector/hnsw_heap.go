package vectorindex

// cand is a graph node (slot) with its distance to the query.
type cand struct {
	d float32
	s int32
}

// minHeap is the candidates a search has yet to expand, closest on top;
// maxHeap is the results it keeps, farthest on top. Typed sifts: the
// container/heap interface would box every element.
type minHeap []cand

func (h *minHeap) push(c cand) {
	a := append(*h, c)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].d <= c.d {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = c
	*h = a
}

func (h *minHeap) pop() cand {
	a := *h
	top := a[0]
	last := a[len(a)-1]
	a = a[:len(a)-1]
	i, n := 0, len(a)
	for n > 0 {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && a[r].d < a[l].d {
			l = r
		}
		if last.d <= a[l].d {
			break
		}
		a[i] = a[l]
		i = l
	}
	if n > 0 {
		a[i] = last
	}
	*h = a
	return top
}

type maxHeap []cand

func (h *maxHeap) push(c cand) {
	a := append(*h, c)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if a[p].d >= c.d {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = c
	*h = a
}

func (h *maxHeap) pop() cand {
	a := *h
	top := a[0]
	last := a[len(a)-1]
	a = a[:len(a)-1]
	i, n := 0, len(a)
	for n > 0 {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && a[r].d > a[l].d {
			l = r
		}
		if last.d >= a[l].d {
			break
		}
		a[i] = a[l]
		i = l
	}
	if n > 0 {
		a[i] = last
	}
	*h = a
	return top
}

// searcher is one search's or insert's scratch, reused from the index's
// pool: a visited set stamped with a generation (a new search bumps the
// generation instead of clearing the set), the two heaps and buffers.
type searcher struct {
	visited  []uint32
	gen      uint32
	cands    minHeap
	res      maxHeap
	sorted   []cand  // res drained closest first
	kept     []cand  // neighbour selection's output
	pruneIn  []cand  // a full list's members and the new node (link)
	pruneOut []cand  // what the pruning keeps
	nbuf     []int32 // a neighbour list copied under its lock
	flight   []int32 // the slots being inserted when this insert began
	hits     []Hit
}

// begin starts a traversal of a graph of n slots.
func (sr *searcher) begin(n int) {
	if len(sr.visited) < n {
		sr.visited = append(sr.visited, make([]uint32, n-len(sr.visited))...)
	}
	sr.gen++
	if sr.gen == 0 {
		clear(sr.visited)
		sr.gen = 1
	}
	sr.cands = sr.cands[:0]
	sr.res = sr.res[:0]
}

// visit marks s, reporting whether it was new.
func (sr *searcher) visit(s int32) bool {
	if sr.visited[s] == sr.gen {
		return false
	}
	sr.visited[s] = sr.gen
	return true
}

// drain empties the results into sr.sorted, closest first.
func (sr *searcher) drain() []cand {
	n := len(sr.res)
	if cap(sr.sorted) < n {
		sr.sorted = make([]cand, n)
	}
	sr.sorted = sr.sorted[:n]
	for i := n - 1; i >= 0; i-- {
		sr.sorted[i] = sr.res.pop()
	}
	return sr.sorted
}
