package engine_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// The algorithms' projections under row-level security: a restricted
// principal's rows equal an unrestricted principal's on a copy of the
// graph from which the hidden rows were deleted first (rlsHide).

// rlsAlgoConfigs are the projections each algorithm runs over: the whole
// graph, label and type filters, other directions.
var rlsAlgoConfigs = []string{
	"",
	"nodeLabels: ['A', 'B'], ",
	"relationshipTypes: ['S'], ",
	"nodeLabels: ['A', 'C'], relationshipTypes: ['S'], direction: 'UNDIRECTED', ",
	"relationshipTypes: ['R'], direction: 'REVERSE', ",
}

// rlsAlgoQueries are the algo.* calls of the model test over each
// projection of rlsAlgoConfigs, from hubs and from the given sources (a
// hidden node, a visible one). The race run leaves it out (Makefile
// RACE_SKIP: the detector makes every call ten times slower);
// TestRowSecurityAlgoHiddenNode runs the same workers under it.
func rlsAlgoQueries(given ...string) []string {
	var qs []string
	configs, sources := rlsAlgoConfigs, append([]string{"0", "1", "3"}, given...)
	for _, cfg := range configs {
		for _, src := range sources {
			qs = append(qs,
				fmt.Sprintf("CALL algo.bfs.stream({%ssourceNode: %s}) YIELD nodeId, depth RETURN id(nodeId), depth", cfg, src),
				fmt.Sprintf("CALL algo.bfs.stream({%ssourceNode: %s, maxDepth: 2, includeUnreachable: false}) YIELD nodeId, depth RETURN id(nodeId), depth", cfg, src),
				fmt.Sprintf("CALL algo.sssp.stream({%ssourceNode: %s, relationshipWeightProperty: 'w'}) YIELD nodeId, distance RETURN id(nodeId), distance", cfg, src),
				fmt.Sprintf("CALL algo.sssp.stream({%ssourceNode: %s}) YIELD nodeId, distance RETURN id(nodeId), distance", cfg, src),
				fmt.Sprintf("CALL algo.dijkstra.stream({%ssourceNode: %s, relationshipWeightProperty: 'w'}) YIELD targetNode, cost, nodeIds, path "+
					"RETURN id(targetNode), cost, nodeIds, [r IN relationships(path) | id(r)]", cfg, src),
			)
		}
		qs = append(qs,
			fmt.Sprintf("CALL algo.dijkstra.stream({%ssourceNode: 0, targetNodes: [4, 6, 7, 8, 9]}) YIELD targetNode, cost, nodeIds RETURN id(targetNode), cost, nodeIds", cfg),
			fmt.Sprintf("CALL algo.wcc.stream({%s}) YIELD nodeId, componentId RETURN id(nodeId), componentId", cfg),
			fmt.Sprintf("CALL algo.pagerank.stream({%s}) YIELD nodeId, score RETURN id(nodeId), score", cfg),
			fmt.Sprintf("CALL algo.pagerank.stream({%stolerance: 0, maxIterations: 5}) YIELD nodeId, score RETURN id(nodeId), score", cfg),
			fmt.Sprintf("CALL algo.cdlp.stream({%s}) YIELD nodeId, communityId RETURN id(nodeId), communityId", cfg),
			fmt.Sprintf("CALL algo.cdlp.stream({%sseedProperty: 'uid'}) YIELD nodeId, communityId RETURN id(nodeId), communityId", cfg),
			fmt.Sprintf("CALL algo.lcc.stream({%s}) YIELD nodeId, coefficient RETURN id(nodeId), coefficient", cfg),
		)
	}
	// Composed with the rest of a query.
	qs = append(qs,
		"CALL algo.wcc.stream({}) YIELD componentId WITH componentId, count(*) AS size RETURN size, count(*) ORDER BY size",
		"MATCH (n:A) WHERE n.uid < 50 CALL algo.bfs.stream({sourceNode: n, maxDepth: 1, includeUnreachable: false}) YIELD nodeId RETURN n.uid, count(*) ORDER BY n.uid",
	)
	return qs
}

func TestRowSecurityAlgoModel(t *testing.T) {
	t.Parallel() // beside the other model tests (metamorphic_test.go)
	rng := metaRand(t, 11)
	nodes, rels := metaGraph(rng)
	for _, editor := range []bool{false, true} {
		t.Run(fmt.Sprintf("editor=%v", editor), func(t *testing.T) {
			p, model := rlsModelPair(t, nodes, rels, editor)
			db := p.db
			// Sources: a node the policies hide, and one they do not.
			hidden := one(t, db, "MATCH (n:A) WHERE n.g >= 6 AND coalesce(n.name, '') <> 'ann' RETURN id(n) ORDER BY id(n) LIMIT 1")
			visible := one(t, db, "MATCH (n:A:C) WHERE n.g < 6 AND NOT n:B RETURN id(n) ORDER BY id(n) LIMIT 1")
			queries := rlsAlgoQueries(hidden, visible)
			errors, ran := 0, 0
			for n, q := range queries {
				if !metaSampled(n) { // a rotating share; all in make test-long
					continue
				}
				ran++
				got, want := rlsRun(p, q, nil), rlsRun(model, q, nil)
				if strings.HasPrefix(want[0], "error") {
					errors++
				}
				if !equalMeta(got, want, strings.Contains(q, "ORDER BY")) {
					t.Errorf("%s\nrestricted %d rows:\n%s\nmodel %d rows:\n%s", q, len(got)-1, head(got), len(want)-1, head(want))
				}
			}
			// Both outcomes were compared: hidden sources (errors) and
			// visible ones (rows).
			if errors == 0 || errors == ran {
				t.Errorf("%d of %d calls failed: the sources do not cover hidden and visible nodes", errors, ran)
			}
		})
	}
}

// A hidden node given as a source or a target behaves as a node that
// never existed: the same error, in the same words but for the id.
func TestRowSecurityAlgoHiddenNode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	nodes, rels := metaGraph(rng)
	db := openLoaded(t, nodes, rels)
	for _, q := range rlsPolicies {
		mustQuery(t, adminOf(db), q, nil)
	}
	hidden := one(t, db, "MATCH (n:A) WHERE n.g >= 6 AND coalesce(n.name, '') <> 'ann' RETURN id(n) ORDER BY id(n) LIMIT 1")
	visible := one(t, db, "MATCH (n) WHERE NOT n:A RETURN id(n) ORDER BY id(n) LIMIT 1")
	p := readerOf(db, map[string]vector.Value{"maxg": int64(6)})
	ids := regexp.MustCompile(`\b` + hidden + `\b|\b999999999\b`)
	for _, form := range []string{
		"CALL algo.bfs.stream({sourceNode: %s}) YIELD nodeId RETURN count(*)",
		"CALL algo.sssp.stream({sourceNode: %s, relationshipWeightProperty: 'w'}) YIELD nodeId RETURN count(*)",
		"CALL algo.dijkstra.stream({sourceNode: %s}) YIELD targetNode RETURN count(*)",
		"CALL algo.dijkstra.stream({sourceNode: " + visible + ", targetNode: %s}) YIELD targetNode RETURN count(*)",
		"CALL algo.dijkstra.stream({sourceNode: " + visible + ", targetNodes: [%s]}) YIELD targetNode RETURN count(*)",
	} {
		eh := queryErr(t, p, fmt.Sprintf(form, hidden), nil)
		en := queryErr(t, p, fmt.Sprintf(form, "999999999"), nil)
		if eh.Code != en.Code || ids.ReplaceAllString(eh.Message, "#") != ids.ReplaceAllString(en.Message, "#") {
			t.Errorf("%s: hidden node: %s %s; no node: %s %s", form, eh.Code, eh.Message, en.Code, en.Message)
		}
		// The administrator sees the node.
		if got := rlsRun(adminOf(db), fmt.Sprintf(form, hidden), nil); strings.HasPrefix(got[0], "error") {
			t.Errorf("%s: the admin cannot use node %s: %s", form, hidden, got[0])
		}
	}
	// A hidden node is no row of a result.
	q := "CALL algo.wcc.stream({}) YIELD nodeId WHERE id(nodeId) = " + hidden + " RETURN count(*)"
	if got := one(t, p, q); got != "0" {
		t.Errorf("wcc names the hidden node %s: %s", hidden, got)
	}
	if got := one(t, adminOf(db), q); got != "1" {
		t.Errorf("wcc as admin: %s", got)
	}
}

// The projection cache never serves a restricted projection to another
// principal, nor an unrestricted one to a restricted principal.
func TestRowSecurityAlgoCache(t *testing.T) {
	t.Parallel() // beside the other model tests (metamorphic_test.go)
	rng := rand.New(rand.NewPCG(5, 11))
	nodes, rels := metaGraph(rng)
	model := openLoaded(t, nodes, rels)
	for _, q := range rlsHide(false) {
		mustQuery(t, model, q, nil)
	}
	queries := []string{
		"CALL algo.wcc.stream({}) YIELD nodeId, componentId RETURN id(nodeId), componentId",
		"CALL algo.pagerank.stream({}) YIELD nodeId, score RETURN id(nodeId), score",
		"CALL algo.sssp.stream({sourceNode: 4, relationshipWeightProperty: 'w'}) YIELD nodeId, distance RETURN id(nodeId), distance",
	}
	for _, restrictedFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("restrictedFirst=%v", restrictedFirst), func(t *testing.T) {
			db := openLoaded(t, nodes, rels)
			plain := openLoaded(t, nodes, rels) // no policies: the unrestricted answers
			for _, q := range rlsPolicies {
				mustQuery(t, adminOf(db), q, nil)
			}
			admin := adminOf(db)
			p := readerOf(db, map[string]vector.Value{"maxg": int64(6)}, "reader")
			for _, q := range queries {
				restricted := func() {
					if got, want := rlsRun(p, q, nil), rlsRun(model, q, nil); !equalMeta(got, want, false) {
						t.Errorf("restricted %s\n%d rows:\n%s\nmodel %d rows:\n%s", q, len(got)-1, head(got), len(want)-1, head(want))
					}
				}
				unrestricted := func() {
					if got, want := rlsRun(admin, q, nil), rlsRun(plain, q, nil); !equalMeta(got, want, false) {
						t.Errorf("admin %s\n%d rows:\n%s\nunrestricted %d rows:\n%s", q, len(got)-1, head(got), len(want)-1, head(want))
					}
				}
				entries := cacheEntries(t, db)
				if restrictedFirst {
					restricted()
					if e := cacheEntries(t, db); e != entries {
						t.Errorf("a restricted projection was cached: %s entries, then %s", entries, e)
					}
					unrestricted()
				} else {
					unrestricted()
					restricted()
				}
				restricted()
				unrestricted()
			}
		})
	}
}

func cacheEntries(t *testing.T, db *engine.DB) string {
	t.Helper()
	return one(t, adminOf(db), "CALL algo.cache.stats() YIELD entries RETURN entries")
}

// With policies on a relationship type only, every node is visible and
// the projection drops the hidden relationships alone.
func TestRowSecurityAlgoRelsOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 11))
	nodes, rels := metaGraph(rng)
	db, model := openLoaded(t, nodes, rels), openLoaded(t, nodes, rels)
	mustQuery(t, adminOf(db), rlsPolicies[3], nil)
	mustQuery(t, model, rlsHide(false)[1], nil)
	p := readerOf(db, nil)
	for _, q := range []string{
		"CALL algo.bfs.stream({sourceNode: 0}) YIELD nodeId, depth RETURN id(nodeId), depth",
		"CALL algo.sssp.stream({sourceNode: 1, relationshipWeightProperty: 'w'}) YIELD nodeId, distance RETURN id(nodeId), distance",
		"CALL algo.wcc.stream({direction: 'UNDIRECTED'}) YIELD nodeId, componentId RETURN id(nodeId), componentId",
		"CALL algo.pagerank.stream({relationshipTypes: ['S']}) YIELD nodeId, score RETURN id(nodeId), score",
		"CALL algo.lcc.stream({}) YIELD nodeId, coefficient RETURN id(nodeId), coefficient",
		"CALL algo.cdlp.stream({}) YIELD nodeId, communityId RETURN id(nodeId), communityId",
	} {
		if got, want := rlsRun(p, q, nil), rlsRun(model, q, nil); !equalMeta(got, want, false) {
			t.Errorf("%s\nrestricted %d rows:\n%s\nmodel %d rows:\n%s", q, len(got)-1, head(got), len(want)-1, head(want))
		}
	}
}
