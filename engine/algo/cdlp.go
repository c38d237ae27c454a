package algo

import "slices"

// CDLP runs Graphalytics' synchronous label propagation for exactly iters
// rounds from the labels seed (one per vertex; the caller's to give up)
// and returns the final labels. In each round a vertex takes the most
// frequent label among its in- and out-neighbours in the previous round
// (an edge in both directions counts twice, parallel edges each), ties
// going to the smallest label; a vertex without neighbours keeps its
// label. On a symmetric projection in = out, so counting the list once
// doubles every count and changes no choice. Each worker sorts a
// vertex's neighbour labels in its own buffer; rounds read only the
// previous round's labels, so the result does not depend on the schedule.
// The buffers grow to the largest degree a worker meets, charged as they
// grow.
func CDLP(r *Run, g *Graph, seed []int64, iters int) ([]int64, error) {
	cur := seed
	next, err := makeSlice[int64](r, g.N, u64Bytes)
	if err != nil {
		return nil, err
	}
	bufs := make([][]int64, r.workers())
	cuts, err := ranges(r, g.Out.Off, g.N)
	if err != nil {
		return nil, err
	}
	for i := range iters {
		if err := r.round("cdlp", i); err != nil {
			return nil, err
		}
		err := r.overRanges(cuts, func(w, _, lo, hi int) error {
			buf := bufs[w]
			defer func() { bufs[w] = buf }()
			for v := lo; v < hi; v++ {
				d := g.Out.Degree(uint32(v))
				if !g.Symmetric {
					d += g.In.Degree(uint32(v))
				}
				var err error
				if buf, err = growSlice(r, buf[:0], d, u64Bytes); err != nil {
					return err
				}
				for _, u := range g.Out.List(uint32(v)) {
					buf = append(buf, cur[u])
				}
				if !g.Symmetric {
					for _, u := range g.In.List(uint32(v)) {
						buf = append(buf, cur[u])
					}
				}
				if len(buf) == 0 {
					next[v] = cur[v]
					continue
				}
				next[v] = mostFrequent(buf)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		cur, next = next, cur
	}
	return cur, nil
}

// mostFrequent is the most frequent value of labels (sorted in place),
// the smallest among equally frequent ones.
func mostFrequent(labels []int64) int64 {
	slices.Sort(labels)
	best, bestN := labels[0], 0
	for i := 0; i < len(labels); {
		j := i + 1
		for j < len(labels) && labels[j] == labels[i] {
			j++
		}
		if j-i > bestN { // ascending order: a tie keeps the smaller
			best, bestN = labels[i], j-i
		}
		i = j
	}
	return best
}
