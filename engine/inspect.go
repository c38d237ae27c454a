package engine

import (
	"github.com/quiverdb/quiver/engine/catalog"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// NodeState is one node as Inspect reports it.
type NodeState struct {
	ID     uint64
	Labels []string
	Props  map[string]vector.Value
}

// RelState is one relationship as Inspect reports it.
type RelState struct {
	ID         uint64
	Type       string
	Start, End uint64
	Props      map[string]vector.Value
}

// Inspect calls node for every live node and rel for every relationship
// of the latest committed snapshot, in id order for nodes. It reads the
// store directly rather than through queries, so that tools comparing
// graph states (the TCK runner's side-effect check) do not depend on the
// query language. Either callback may be nil.
func (db *DB) Inspect(node func(NodeState), rel func(RelState)) {
	s := db.store.Snapshot()
	cat := db.store.Catalog()
	var labels []catalog.LabelID
	var nbrs, rels []uint64
	it := s.LiveNodes().Iterator()
	for it.HasNext() {
		id := uint64(it.Next())
		if node != nil {
			n := NodeState{ID: id, Props: map[string]vector.Value{}}
			labels = s.AppendNodeLabels(labels[:0], id)
			for _, l := range labels {
				n.Labels = append(n.Labels, cat.LabelName(l))
			}
			s.NodeProps(id, func(k catalog.KeyID, v vector.Value) { n.Props[cat.KeyName(k)] = v })
			node(n)
		}
		if rel == nil {
			continue
		}
		// Every relationship is found once, from its start node.
		for _, t := range cat.Types() {
			adj := s.Adjacency(t, storage.Outgoing)
			if adj == nil {
				continue
			}
			nbrs, rels = adj.AppendNeighbors(nbrs[:0], rels[:0], id)
			for i, r := range rels {
				st := RelState{ID: r, Type: cat.TypeName(t), Start: id, End: nbrs[i], Props: map[string]vector.Value{}}
				s.RelProps(r, func(k catalog.KeyID, v vector.Value) { st.Props[cat.KeyName(k)] = v })
				rel(st)
			}
		}
	}
}
