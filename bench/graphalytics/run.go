package graphalytics

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/engine"
)

// Algorithm is one of the Graphalytics algorithms as Quiver runs it.
type Algorithm struct {
	// Name is the algorithm's name in a graph's properties ("bfs");
	// Ref the suffix of its reference output file (NAME-BFS).
	Name, Ref string
	Rule      Rule
}

// Algorithms are the six Graphalytics algorithms.
var Algorithms = []Algorithm{
	{"bfs", "BFS", Exact},
	{"cdlp", "CDLP", Exact},
	{"lcc", "LCC", Epsilon},
	{"pr", "PR", Epsilon},
	{"sssp", "SSSP", Epsilon},
	{"wcc", "WCC", Equivalence},
}

// Query returns the statement that runs a on the imported graph g, with
// its parameters taken from g's properties: a CALL of the algo.*.stream
// procedure yielding each vertex's id and value. A graph imported with
// --graphalytics stores an undirected graph in both directions, so every
// algorithm reads the default direction (docs/algorithms.md).
func Query(a Algorithm, g *engine.Graphalytics) (string, engine.Params, error) {
	return QueryIn(a, g, "")
}

// QueryIn is Query reading the graph in the given direction ('NATURAL',
// 'REVERSE' or 'UNDIRECTED'; "" for the procedure's default).
func QueryIn(a Algorithm, g *engine.Graphalytics, direction string) (string, engine.Params, error) {
	p := engine.Params{}
	// config adds the direction to a procedure's config map fields.
	config := func(fields string) string {
		if direction == "" {
			return "{" + fields + "}"
		}
		p["direction"] = direction
		if fields == "" {
			return "{direction: $direction}"
		}
		return "{" + fields + ", direction: $direction}"
	}
	var err error
	intProp := func(key string) int64 {
		s, ok := g.Props[key]
		if !ok {
			err = fmt.Errorf("graph %s: no %s property", g.Name, key)
			return 0
		}
		v, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil {
			err = fmt.Errorf("graph %s: %s = %q is not an integer", g.Name, key, s)
		}
		return v
	}
	var q string
	switch a.Name {
	case "bfs":
		p["source"] = intProp("bfs.source-vertex")
		q = "MATCH (s:V {id: $source}) CALL algo.bfs.stream(" + config("sourceNode: s") + ") YIELD nodeId, depth RETURN nodeId.id, depth"
	case "sssp":
		p["source"] = intProp("sssp.source-vertex")
		w := g.Props["sssp.weight-property"]
		if w == "" {
			w = "weight"
		}
		p["weight"] = w
		q = "MATCH (s:V {id: $source}) CALL algo.sssp.stream(" + config("sourceNode: s, relationshipWeightProperty: $weight") + ") YIELD nodeId, distance RETURN nodeId.id, distance"
	case "wcc":
		q = "CALL algo.wcc.stream(" + config("") + ") YIELD nodeId, componentId RETURN nodeId.id, componentId"
	case "pr":
		p["iterations"] = intProp("pr.num-iterations")
		d, perr := strconv.ParseFloat(g.Props["pr.damping-factor"], 64)
		if perr != nil {
			return "", nil, fmt.Errorf("graph %s: pr.damping-factor = %q is not a number", g.Name, g.Props["pr.damping-factor"])
		}
		p["damping"] = d
		q = "CALL algo.pagerank.stream(" + config("dampingFactor: $damping, maxIterations: $iterations, tolerance: 0.0") + ") YIELD nodeId, score RETURN nodeId.id, score"
	case "cdlp":
		p["iterations"] = intProp("cdlp.max-iterations")
		q = "CALL algo.cdlp.stream(" + config("maxIterations: $iterations, seedProperty: 'id'") + ") YIELD nodeId, communityId RETURN nodeId.id, communityId"
	case "lcc":
		q = "CALL algo.lcc.stream(" + config("") + ") YIELD nodeId, coefficient RETURN nodeId.id, coefficient"
	default:
		return "", nil, fmt.Errorf("unknown algorithm %q", a.Name)
	}
	return q, p, err
}

// Run runs a statement whose rows are (vertex id, value) and collects
// them.
func Run(ctx context.Context, db *engine.DB, text string, params engine.Params) (Output, error) {
	res, err := db.Query(ctx, text, params)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	out := Output{}
	for {
		b, err := res.Next()
		if err != nil {
			return nil, err
		}
		if b == nil {
			return out, nil
		}
		if len(b.Cols) != 2 {
			return nil, fmt.Errorf("%d columns, want vertex and value", len(b.Cols))
		}
		for i := 0; i < b.Rows(); i++ {
			row := b.Row(i)
			id, ok := b.Cols[0].Get(row).(int64)
			if !ok {
				return nil, fmt.Errorf("vertex id %v is not an INTEGER", b.Cols[0].Get(row))
			}
			var v Value
			switch x := b.Cols[1].Get(row).(type) {
			case int64:
				v = IntValue(x)
			case float64:
				if math.IsNaN(x) {
					return nil, fmt.Errorf("vertex %d: NaN", id)
				}
				v = FloatValue(x)
			default:
				return nil, fmt.Errorf("vertex %d: value %v (%T) is not a number", id, x, x)
			}
			if err := out.Add(id, v); err != nil {
				return nil, err
			}
		}
	}
}

// Check runs algorithm a on db, which holds the imported graph at prefix,
// and validates the rows against the reference output prefix-REF.
func Check(ctx context.Context, db *engine.DB, prefix string, g *engine.Graphalytics, a Algorithm) error {
	return CheckIn(ctx, db, prefix, g, a, "")
}

// CheckIn is Check reading the graph in the given direction (QueryIn).
func CheckIn(ctx context.Context, db *engine.DB, prefix string, g *engine.Graphalytics, a Algorithm, direction string) error {
	want, err := ReadOutput(prefix + "-" + a.Ref)
	if err != nil {
		return err
	}
	q, params, err := QueryIn(a, g, direction)
	if err != nil {
		return err
	}
	got, err := Run(ctx, db, q, params)
	if err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return Validate(a.Rule, want, got)
}

// HasReference reports whether prefix-REF exists.
func HasReference(prefix string, a Algorithm) bool {
	_, err := os.Stat(prefix + "-" + a.Ref)
	return err == nil
}

// Listed returns the algorithms g's properties list (graph.NAME.algorithms).
func Listed(g *engine.Graphalytics) []string {
	var out []string
	for _, s := range strings.Split(g.Props["algorithms"], ",") {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	return out
}
