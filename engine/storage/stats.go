package storage

// Stats are the counts storage procedures report of one version.
type Stats struct {
	Nodes, Rels         int64
	NodeBound, RelBound uint64 // ids below the bound: live, deleted or never committed
	// Labels is the number of labels some node carries; LabelEntries the
	// sum over labels of the nodes carrying it.
	Labels       int
	LabelEntries uint64
	// LiveRels is the relationships the table holds (what RelCount must
	// equal); AdjacencyEdges the edges of the forward CSRs (the same
	// again, per direction).
	LiveRels       int64
	AdjacencyEdges [2]int64
}

// Stats counts the version's entities; O(labels + relationships).
func (s *Snapshot) Stats() Stats {
	st := Stats{Nodes: s.nodeCount, Rels: s.relCount, NodeBound: s.nodeBound, RelBound: s.relBound}
	for _, b := range s.labels {
		if b != nil && !b.IsEmpty() {
			st.Labels++
			st.LabelEntries += b.GetCardinality()
		}
	}
	var live int64
	for g := range s.relGroups() {
		c := (*relChunk)(nil)
		if g < len(s.rels) {
			c = s.rels[g]
		}
		if c == nil {
			if s.derived != nil {
				n, _ := s.derived.liveIn(g)
				live += int64(n)
			}
			continue
		}
		for _, t := range c.typ {
			if t != noRel {
				live++
			}
		}
	}
	st.LiveRels = live
	for _, p := range s.adj {
		for d, a := range p {
			if a != nil {
				st.AdjacencyEdges[d] += int64(a.NumEdges())
			}
		}
	}
	return st
}
