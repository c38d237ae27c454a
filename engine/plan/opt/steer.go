package opt

import "github.com/quiverdb/quiver/engine/plan"

// A shortest path search written as shortestPath(…) or
// allShortestPaths(…) (plan.ShortestPath's Steer) finds the shortest
// paths among those that satisfy the all() and none() conjuncts of its
// WHERE over the path's elements: a relationship or node that fails is
// never part of the search. This is the meaning Neo4j gives those
// functions (its fast search applies such universal predicates while
// searching), so shortestPath((a)-[*]->(b)) WHERE all(r IN
// relationships(p) WHERE r.w > 1) returns a longer path when the
// shortest one fails, rather than no row. A GQL search (ANY SHORTEST,
// ALL SHORTEST) keeps the standard's order instead: the shortest paths
// are selected, then its MATCH's WHERE filters them.
//
// The conjuncts taken are exactly those path-prune takes for a
// variable-length chain (path_prune.go): a top-level all() or none()
// over relationships(p), nodes(p), nodes(p)[1..-1] or the relationship
// list, whose predicate reads only the element and cannot fail. They
// leave the Filter, since every path found passes them. The pass runs
// whatever rules are off: it is what the query means. Other conditions
// on the path (any(), length(p), a predicate that could raise an error)
// still filter the shortest paths found; Neo4j would search on among
// longer paths for one that passes them, which Quiver does not
// (docs/query-language.md, "Shortest paths").

// steerShortest moves those conjuncts into the steered searches of op's
// plan.
func steerShortest(op plan.Operator) plan.Operator { return prunePaths(op, true) }
