// Package graphalytics checks Quiver's graph algorithms against the LDBC
// Graphalytics reference outputs: it reads a reference graph's
// parameters and expected outputs, runs each algorithm through the query
// language (CALL algo.X.stream … YIELD) on a database the graph was
// imported into (quiver import --graphalytics), and validates the rows
// with Graphalytics' rules: the vertex set equal; BFS and CDLP exact; WCC
// equal up to a relabelling; PR, LCC and SSSP within 1e-4 relative, an
// infinity only against an infinity.
//
// The reference graphs are an external suite (../shared/graphalytics
// beside the repository, or $QUIVER_GRAPHALYTICS_DIR); the package holds
// the validator and the runner, not the data. It reads the engine
// through its public API only and must not reach into its layers.
package graphalytics
