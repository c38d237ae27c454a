package algo

import (
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/vector"
)

var dijkstraOutputs = []procs.Field{
	{Name: "sourceNode", Type: "NODE"}, {Name: "targetNode", Type: "NODE"}, {Name: "cost", Type: "FLOAT"},
	{Name: "nodeIds", Type: "LIST"}, {Name: "costs", Type: "LIST"}, {Name: "path", Type: "PATH"},
}

func (ps *procedures) algoDijkstra(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	a, err := ps.startAlgo("algo.dijkstra.stream", c, args)
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
	if err := a.run.Charge(int64(len(targets)) * 4); err != nil { // tv
		return nil, a.fail(err)
	}
	tv := make([]uint32, 0, len(targets))
	key := "targetNodes"
	if hasTarget {
		key = "targetNode"
	}
	err = a.run.Blocks(len(targets), func(lo, hi int) error {
		for _, t := range targets[lo:hi] {
			v, err := a.vertex(g, key, t)
			if err != nil {
				return err
			}
			tv = append(tv, v)
		}
		return nil
	})
	if err != nil {
		return nil, a.fail(err)
	}
	p, err := Dijkstra(a.run, g, s, tv)
	if err != nil {
		return nil, a.fail(err)
	}
	rows := &dijkstraRows{run: a.run, g: g, p: p, src: s, targets: p.Settled}
	// A path holds at most every vertex once: the buffers PathTo fills
	// never grow past N.
	if rows.verts, err = MakeCharged[uint32](a.run, g.N, 4); err != nil {
		return nil, a.fail(err)
	}
	if rows.slots, err = MakeCharged[uint32](a.run, g.N, 4); err != nil {
		return nil, a.fail(err)
	}
	if hasTargets {
		rows.targets = tv[:0] // the reached targets, in place
		err = a.run.Blocks(len(tv), func(lo, hi int) error {
			for _, t := range tv[lo:hi] {
				if p.Pred[t] != ^uint32(0) || t == s {
					rows.targets = append(rows.targets, t)
				}
			}
			return nil
		})
		if err != nil {
			return nil, a.fail(err)
		}
	}
	return rows, nil
}

// dijkstraRows streams one row per target: without targets the settled
// vertices in order of cost, else the reached given targets in order.
// The lists and the path are built only when yielded, and charged before
// they are: a batch of long paths holds a list value per vertex of each
// path. held is what the current batch's values were charged; a new
// batch (at 0) overwrites them, so it gives that back.
type dijkstraRows struct {
	run     *Run
	g       *Graph
	p       *Paths
	src     uint32
	targets []uint32
	next    int
	held    int64

	verts, slots []uint32
}

// pathValueBytes estimates the values a row with a path of n vertices
// yields: the nodeIds and costs lists (a boxed scalar per entry) and the
// PATH (a node and a relationship id per step), as memory.ValueBytes
// counts them.
func pathValueBytes(cols []*vector.Vector, n int) int64 {
	var b int64
	list := memory.IfaceBytes + memory.SliceBytes + int64(n)*(memory.IfaceBytes+memory.BoxedBytes)
	if cols[3] != nil {
		b += list
	}
	if cols[4] != nil {
		b += list
	}
	if cols[5] != nil {
		b += memory.IfaceBytes + 2*memory.SliceBytes + 8*int64(2*n-1)
	}
	return b
}

func (s *dijkstraRows) Fill(cols []*vector.Vector, at, n int) (int, error) {
	if at == 0 && s.held > 0 {
		s.run.Uncharge(s.held)
		s.held = 0
	}
	k := 0
	for ; k < n && s.next < len(s.targets); k++ {
		t := s.targets[s.next]
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
			s.next++
			continue
		}
		s.verts, s.slots = s.p.PathTo(t, s.verts[:0], s.slots[:0])
		b := pathValueBytes(cols, len(s.verts))
		if err := s.run.Charge(b); err != nil {
			return k, err
		}
		s.held += b
		s.next++
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
