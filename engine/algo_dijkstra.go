package engine

import (
	"github.com/quiverdb/quiver/engine/algo"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

var dijkstraOutputs = []procs.Field{
	{Name: "sourceNode", Type: "NODE"}, {Name: "targetNode", Type: "NODE"}, {Name: "cost", Type: "FLOAT"},
	{Name: "nodeIds", Type: "LIST"}, {Name: "costs", Type: "LIST"}, {Name: "path", Type: "PATH"},
}

func algoDijkstra(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	a, err := startAlgo("algo.dijkstra.stream", c, args)
	if err != nil {
		return nil, err
	}
	src, _, err := a.cfg.node("sourceNode", true)
	if err != nil {
		return nil, err
	}
	target, hasTarget, err := a.cfg.node("targetNode", false)
	if err != nil {
		return nil, err
	}
	targets, hasTargets, err := a.cfg.nodeList("targetNodes")
	if err != nil {
		return nil, err
	}
	if hasTarget && hasTargets {
		return nil, a.cfg.bad("targetNode", "and targetNodes cannot both be given")
	}
	if hasTarget {
		targets, hasTargets = []uint64{target}, true
	}
	if err := a.weight(c); err != nil {
		return nil, err
	}
	a.proj.Out, a.proj.OutRels = true, true
	g, err := a.project()
	if err != nil {
		return nil, err
	}
	s, err := a.vertex(g, "sourceNode", src)
	if err != nil {
		return nil, a.fail(err)
	}
	var tv []uint32
	for _, t := range targets {
		key := "targetNodes"
		if hasTarget {
			key = "targetNode"
		}
		v, err := a.vertex(g, key, t)
		if err != nil {
			return nil, a.fail(err)
		}
		tv = append(tv, v)
	}
	p, err := algo.Dijkstra(a.run, g, s, tv)
	if err != nil {
		return nil, a.fail(err)
	}
	rows := &dijkstraRows{run: a.run, g: g, p: p, src: s, targets: p.Settled}
	if hasTargets {
		rows.targets = rows.targets[:0:0]
		for _, t := range tv {
			if p.Pred[t] != ^uint32(0) || t == s {
				rows.targets = append(rows.targets, t)
			}
		}
	}
	return rows, nil
}

// dijkstraRows streams one row per target: without targets the settled
// vertices in order of cost, else the reached given targets in order.
// The lists and the path are built only when yielded.
type dijkstraRows struct {
	run     *algo.Run
	g       *algo.Graph
	p       *algo.Paths
	src     uint32
	targets []uint32
	next    int

	verts, slots []uint32
}

func (s *dijkstraRows) Fill(cols []*vector.Vector, at, n int) (int, error) {
	k := 0
	for ; k < n && s.next < len(s.targets); k++ {
		t := s.targets[s.next]
		s.next++
		r := at + k
		if c := cols[0]; c != nil {
			c.IDs[r] = s.g.NodeID(s.src)
		}
		if c := cols[1]; c != nil {
			c.IDs[r] = s.g.NodeID(t)
		}
		if c := cols[2]; c != nil {
			c.F64[r] = s.p.Dist[t]
		}
		if cols[3] == nil && cols[4] == nil && cols[5] == nil {
			continue
		}
		s.verts, s.slots = s.p.PathTo(t, s.verts[:0], s.slots[:0])
		if c := cols[3]; c != nil {
			ids := make([]vector.Value, len(s.verts))
			for i, v := range s.verts {
				ids[i] = int64(s.g.NodeID(v))
			}
			c.Set(r, ids)
		}
		if c := cols[4]; c != nil {
			costs := make([]vector.Value, len(s.verts))
			for i, v := range s.verts {
				costs[i] = s.p.Dist[v]
			}
			c.Set(r, costs)
		}
		if c := cols[5]; c != nil {
			path := vector.Path{Nodes: make([]uint64, len(s.verts)), Rels: make([]uint64, len(s.slots))}
			for i, v := range s.verts {
				path.Nodes[i] = s.g.NodeID(v)
			}
			for i, sl := range s.slots {
				path.Rels[i] = s.g.OutRel[sl]
			}
			c.Set(r, path)
		}
	}
	return k, nil
}

func (s *dijkstraRows) Close() { s.run.Release() }
