package algo

import (
	"fmt"
	"math"
	"runtime"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/procs"
	"github.com/quiverdb/quiver/engine/progress"
	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// The algo.* procedures (docs/algorithms.md): each reads its
// configuration map (procs_config.go), projects the statement's snapshot
// (project.go), runs the algorithm and streams its result as typed
// columns (procs_rows.go).

var algoConfigInput = []procs.Field{{Name: "config", Type: "MAP", Optional: true}}

func algoNodeOutputs(name, typ string) []procs.Field {
	return []procs.Field{{Name: "nodeId", Type: "NODE"}, {Name: name, Type: typ}}
}

// procedures are the algo.* procedures of one database: its projection
// cache and where long projections log their progress.
type procedures struct {
	cache *Cache // nil: off
	log   progress.Log
}

// RegisterProcedures makes the algo.* procedures and algo.cache.stats()
// callable through reg. Projections are kept in cache between calls (nil:
// no cache); a long projection logs its progress through log.
func RegisterProcedures(reg *procs.Registry, cache *Cache, log progress.Log) error {
	ps := &procedures{cache: cache, log: log}
	for _, p := range []*procs.Procedure{
		{Signature: procs.Signature{Name: "algo.bfs.stream", Inputs: algoConfigInput, Outputs: algoNodeOutputs("depth", "INTEGER"), Requires: procs.PrivRead}, Stream: ps.algoBFS},
		{Signature: procs.Signature{Name: "algo.sssp.stream", Inputs: algoConfigInput, Outputs: algoNodeOutputs("distance", "FLOAT"), Requires: procs.PrivRead}, Stream: ps.algoSSSP},
		{Signature: procs.Signature{Name: "algo.dijkstra.stream", Inputs: algoConfigInput, Outputs: dijkstraOutputs, Requires: procs.PrivRead}, Stream: ps.algoDijkstra},
		{Signature: procs.Signature{Name: "algo.wcc.stream", Inputs: algoConfigInput, Outputs: algoNodeOutputs("componentId", "INTEGER"), Requires: procs.PrivRead}, Stream: ps.algoWCC},
		{Signature: procs.Signature{Name: "algo.pagerank.stream", Inputs: algoConfigInput, Outputs: algoNodeOutputs("score", "FLOAT"), Requires: procs.PrivRead}, Stream: ps.algoPageRank},
		{Signature: procs.Signature{Name: "algo.cdlp.stream", Inputs: algoConfigInput, Outputs: algoNodeOutputs("communityId", "INTEGER"), Requires: procs.PrivRead}, Stream: ps.algoCDLP},
		{Signature: procs.Signature{Name: "algo.lcc.stream", Inputs: algoConfigInput, Outputs: algoNodeOutputs("coefficient", "FLOAT"), Requires: procs.PrivRead}, Stream: ps.algoLCC},
	} {
		if err := reg.Register(p); err != nil {
			return fmt.Errorf("cannot register %s: %w", p.Name, err)
		}
	}
	return ps.registerCacheProcedure(reg)
}

// algoCall is one call's configuration, transaction and run.
type algoCall struct {
	cache *Cache
	log   progress.Log
	cfg   *algoConfig
	tx    *storage.Tx
	run   *Run
	proj  Projection
}

// startAlgo reads the common keys; the caller reads its own, then calls
// project.
func (ps *procedures) startAlgo(name string, c *procs.Context, args []vector.Value) (*algoCall, error) {
	tx, ok := c.Reader.(*storage.Tx)
	if !ok {
		return nil, errs.Internal("%s: the query reads no transaction", name)
	}
	cfg, err := newAlgoConfig(name, args[0])
	if err != nil {
		return nil, err
	}
	proj, workers, err := cfg.projection(c.Catalog)
	if err != nil {
		return nil, err
	}
	limit := c.Parallelism
	if limit <= 0 {
		limit = runtime.GOMAXPROCS(0)
	}
	if workers <= 0 || workers > limit {
		workers = limit // a ceiling: concurrency may lower it, never raise it
	}
	if c.Visible != nil {
		// Row-level security: the projection keeps to what the
		// principal sees (procs.Visibility).
		vis, err := c.Visible()
		if err != nil {
			return nil, err
		}
		proj.Restricted, proj.VisibleNodes, proj.HiddenRels = true, vis.Nodes, vis.HiddenRels
	}
	ctx := c.Ctx
	return &algoCall{cache: ps.cache, log: ps.log, cfg: cfg, tx: tx, proj: proj,
		run: &Run{Mem: c.Mem, Workers: workers, Stop: func() error { return errs.Stopped(ctx) }, Probe: ProbeOf(ctx)}}, nil
}

// weight reads relationshipWeightProperty into the projection.
func (a *algoCall) weight(c *procs.Context) error {
	name, ok, err := a.cfg.str("relationshipWeightProperty")
	if err != nil || !ok {
		return err
	}
	a.proj.Weighted, a.proj.WeightName = true, name
	if k, found := c.Catalog.LookupKey(name); found {
		a.proj.Weight = k
		return nil
	}
	// No relationship has the key: every projected one lacks it (the
	// projection reports the first, if there is any).
	a.proj.WeightMissing = true
	return nil
}

// project checks the keys and builds the graph.
func (a *algoCall) project() (*Graph, error) {
	if err := a.cfg.done(); err != nil {
		return nil, err
	}
	// A projection not in the cache is the slow part of a first call:
	// its progress is logged when it is long (progress.Log).
	w := a.log.Start("algorithm projection", "procedure", a.cfg.proc)
	a.run.Progress = w.Tracker()
	g, err := ProjectCached(a.run, a.cache, a.tx, a.proj)
	a.run.Progress = nil
	if g != nil {
		w.End(err, "vertices", g.N)
	} else {
		w.End(err)
	}
	if err != nil {
		a.run.Release()
	}
	return g, err
}

// vertex is node id's vertex, 22023 when it is not one.
func (a *algoCall) vertex(g *Graph, key string, node uint64) (uint32, error) {
	v, ok := g.Vertex(node)
	if !ok {
		return 0, errs.DataCode(errs.CodeInvalidParam, "%s: %s: node %d is not a node of the projected graph (deleted, filtered out or never created)", a.cfg.proc, key, node)
	}
	return v, nil
}

// fail releases the run's memory and passes err on.
func (a *algoCall) fail(err error) error {
	a.run.Release()
	return err
}

func (ps *procedures) algoBFS(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	a, err := ps.startAlgo("algo.bfs.stream", c, args)
	if err != nil {
		return nil, err
	}
	src, _, err := a.cfg.node("sourceNode", true)
	if err != nil {
		return nil, err
	}
	maxDepth, err := a.cfg.integer("maxDepth", -1, 0)
	if err != nil {
		return nil, err
	}
	all, err := a.cfg.boolean("includeUnreachable", true)
	if err != nil {
		return nil, err
	}
	a.proj.Out, a.proj.In = true, true
	a.proj.HubOrder = true
	g, err := a.project()
	if err != nil {
		return nil, err
	}
	s, err := a.vertex(g, "sourceNode", src)
	if err != nil {
		return nil, a.fail(err)
	}
	depth, err := BFS(a.run, g, s, int(min(maxDepth, math.MaxInt32)))
	if err != nil {
		return nil, a.fail(err)
	}
	ints, err := widen(a.run, depth)
	if err != nil {
		return nil, a.fail(err)
	}
	return &vertexRows{run: a.run, g: g, ints: ints, omit: !all}, nil
}

// widen turns BFS depths into the INTEGER column, Unreached into the
// largest INTEGER (Graphalytics' unreachable depth).
func widen(r *Run, depth []int32) ([]int64, error) {
	out, err := MakeCharged[int64](r, len(depth), 8)
	if err != nil {
		return nil, err
	}
	return out, r.Blocks(len(depth), func(lo, hi int) error {
		for i, d := range depth[lo:hi] {
			if d < 0 {
				out[lo+i] = math.MaxInt64
			} else {
				out[lo+i] = int64(d)
			}
		}
		return nil
	})
}

func (ps *procedures) algoSSSP(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	a, err := ps.startAlgo("algo.sssp.stream", c, args)
	if err != nil {
		return nil, err
	}
	src, _, err := a.cfg.node("sourceNode", true)
	if err != nil {
		return nil, err
	}
	if err := a.weight(c); err != nil {
		return nil, err
	}
	all, err := a.cfg.boolean("includeUnreachable", true)
	if err != nil {
		return nil, err
	}
	delta, err := a.cfg.float("delta", 0, math.SmallestNonzeroFloat64, math.MaxFloat64, false)
	if err != nil {
		return nil, err
	}
	a.proj.Out = true
	a.proj.HubOrder = true
	g, err := a.project()
	if err != nil {
		return nil, err
	}
	s, err := a.vertex(g, "sourceNode", src)
	if err != nil {
		return nil, a.fail(err)
	}
	dist, err := SSSP(a.run, g, s, delta)
	if err != nil {
		return nil, a.fail(err)
	}
	return &vertexRows{run: a.run, g: g, floats: dist, omit: !all}, nil
}

func (ps *procedures) algoWCC(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	a, err := ps.startAlgo("algo.wcc.stream", c, args)
	if err != nil {
		return nil, err
	}
	a.proj.Out = true
	a.proj.In = a.proj.Dir != Undirected
	// Linking reads the component of each edge's far end: hubs first,
	// those reads mostly hit the cache (docs/algorithms.md).
	a.proj.HubOrder = true
	g, err := a.project()
	if err != nil {
		return nil, err
	}
	comp, err := WCC(a.run, g)
	if err != nil {
		return nil, a.fail(err)
	}
	ids, err := ComponentNodeIDs(a.run, g, comp)
	if err != nil {
		return nil, a.fail(err)
	}
	return &vertexRows{run: a.run, g: g, ints: ids}, nil
}

func (ps *procedures) algoPageRank(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	a, err := ps.startAlgo("algo.pagerank.stream", c, args)
	if err != nil {
		return nil, err
	}
	d, err := a.cfg.float("dampingFactor", 0.85, 0, 1, true)
	if err != nil {
		return nil, err
	}
	iters, err := a.cfg.integer("maxIterations", 20, 0)
	if err != nil {
		return nil, err
	}
	tol, err := a.cfg.float("tolerance", 1e-7, 0, math.MaxFloat64, false)
	if err != nil {
		return nil, err
	}
	a.proj.In = true
	if a.proj.Dir == Undirected {
		a.proj.Out = true // In is Out
	} else {
		a.proj.OutDegree = true
	}
	// Each edge reads its source's contribution: numbered by out-degree,
	// the sources most edges name share a few cached megabytes.
	a.proj.HubOrder = true
	g, err := a.project()
	if err != nil {
		return nil, err
	}
	pr, _, err := PageRank(a.run, g, d, int(min(iters, math.MaxInt32)), tol)
	if err != nil {
		return nil, a.fail(err)
	}
	return &vertexRows{run: a.run, g: g, floats: pr}, nil
}

func (ps *procedures) algoCDLP(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	a, err := ps.startAlgo("algo.cdlp.stream", c, args)
	if err != nil {
		return nil, err
	}
	iters, err := a.cfg.integer("maxIterations", 10, 0)
	if err != nil {
		return nil, err
	}
	seedKey, seeded, err := a.cfg.str("seedProperty")
	if err != nil {
		return nil, err
	}
	a.proj.Out = true
	a.proj.In = a.proj.Dir != Undirected
	g, err := a.project()
	if err != nil {
		return nil, err
	}
	seed, err := cdlpSeed(a, c, g, seedKey, seeded)
	if err != nil {
		return nil, a.fail(err)
	}
	labels, err := CDLP(a.run, g, seed, int(min(iters, math.MaxInt32)))
	if err != nil {
		return nil, a.fail(err)
	}
	return &vertexRows{run: a.run, g: g, ints: labels}, nil
}

func (ps *procedures) algoLCC(c *procs.Context, args []vector.Value) (procs.Stream, error) {
	a, err := ps.startAlgo("algo.lcc.stream", c, args)
	if err != nil {
		return nil, err
	}
	a.proj.Out, a.proj.Sorted = true, true
	a.proj.In = a.proj.Dir != Undirected
	g, err := a.project()
	if err != nil {
		return nil, err
	}
	coef, err := LCC(a.run, g)
	if err != nil {
		return nil, a.fail(err)
	}
	return &vertexRows{run: a.run, g: g, floats: coef}, nil
}
