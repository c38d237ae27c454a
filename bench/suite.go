package bench

// Query is one query of the suite in both engines' spellings.
type Query struct {
	Name   string
	Shape  string // what the query exercises, for the report (WideSuite)
	Quiver string
	Kuzu   string
	// SQL is the query over DuckDB's node table person(id, name, age,
	// city) and edge table knows(src, dst, since) (bench/duckdb.go), for
	// the queries that have a natural SQL form: joins and aggregations
	// over the two tables. Variable-length and shortest paths (Q6, Q7,
	// W27, W28) have none and leave it empty; DuckDB does not run them.
	// Every endpoint is a Person, so a pattern's endpoint joins person
	// only where its properties are read.
	SQL string
	// TopK is set for ORDER BY … LIMIT queries: answers are compared as
	// ordered groups of ties on column Key (see Compare).
	TopK *TopK
	// Ordered: the query's ORDER BY decides every row's place, so the
	// answers are compared row by row in order.
	Ordered bool
	// KuzuDefect names a known wrong answer of Kùzu's to this query. When
	// DuckDB runs it and agrees with Quiver, Kùzu's differing answer is
	// reported as that defect, not as a mismatch; without DuckDB's
	// agreement it stays a mismatch.
	KuzuDefect string
}

// TopK describes an ordered, limited answer.
type TopK struct {
	Key   int // column the rows are ordered by (descending)
	Limit int
}

// Suite is Q1–Q9 of issue 5. The Quiver texts are the issue's, verbatim;
// Kùzu's differ only where its dialect does (Q7's shortest path). Q6 and
// Q7 (variable-length and shortest paths) have no SQL form.
var Suite = []Query{
	{Name: "Q1", Quiver: "MATCH (p:Person) WHERE p.age > 30 RETURN count(*)",
		SQL: "SELECT count(*) FROM person WHERE age > 30"},
	{Name: "Q2", Quiver: "MATCH (p:Person) RETURN p.city, count(*), avg(p.age) ORDER BY count(*) DESC LIMIT 10",
		SQL:  "SELECT city, count(*), avg(age) FROM person GROUP BY city ORDER BY count(*) DESC LIMIT 10",
		TopK: &TopK{Key: 1, Limit: 10}},
	{Name: "Q3", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN count(*)",
		SQL: "SELECT count(*) FROM knows"},
	{Name: "Q4", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS]->()-[:KNOWS]->(c) RETURN count(DISTINCT c)",
		SQL: "SELECT count(DISTINCT k2.dst) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst WHERE k1.src = 42"},
	{Name: "Q5", Quiver: "MATCH (a:Person)-[:KNOWS]->(b)-[:KNOWS]->(c) RETURN count(*)",
		SQL: "SELECT count(*) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst"},
	// Variable-length: Cypher's trail semantics (Quiver) and Kùzu's walk
	// semantics reach the same set of nodes within 3 hops (a shortest
	// walk is a path), so count(DISTINCT c) agrees.
	{Name: "Q6", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS*1..3]->(c) RETURN count(DISTINCT c)"},
	{Name: "Q7",
		Quiver: "MATCH (a:Person {id: 42}), (b:Person {id: 4242}) MATCH p = shortestPath((a)-[:KNOWS*1..10]->(b)) RETURN length(p)",
		Kuzu:   "MATCH p = (a:Person {id: 42})-[:KNOWS* SHORTEST 1..10]->(b:Person {id: 4242}) RETURN length(p)"},
	{Name: "Q8", Quiver: "MATCH (a:Person)-[:KNOWS]->(b) RETURN a.id, count(*) AS d ORDER BY d DESC LIMIT 10",
		SQL:  "SELECT src, count(*) AS d FROM knows GROUP BY src ORDER BY d DESC LIMIT 10",
		TopK: &TopK{Key: 1, Limit: 10}},
	{Name: "Q9", Quiver: "MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE k.since > 2015 AND b.age < 25 RETURN a.city, count(*) ORDER BY count(*) DESC LIMIT 5",
		SQL:  "SELECT a.city, count(*) FROM knows k JOIN person a ON a.id = k.src JOIN person b ON b.id = k.dst WHERE k.since > 2015 AND b.age < 25 GROUP BY a.city ORDER BY count(*) DESC LIMIT 5",
		TopK: &TopK{Key: 1, Limit: 5}},
}

// Every suite's Kùzu text is its Quiver text unless given.
func init() {
	for _, suite := range [][]Query{Suite, WideSuite, SNBSuite} {
		for i := range suite {
			if suite[i].Kuzu == "" {
				suite[i].Kuzu = suite[i].Quiver
			}
		}
	}
}
