package bench

// Query is one query of the suite in both engines' spellings.
type Query struct {
	Name   string
	Shape  string // what the query exercises, for the report (WideSuite)
	Quiver string
	Kuzu   string
	// TopK is set for ORDER BY … LIMIT queries: answers are compared as
	// ordered groups of ties on column Key (see Compare).
	TopK *TopK
	// Ordered: the query's ORDER BY decides every row's place, so the
	// answers are compared row by row in order.
	Ordered bool
}

// TopK describes an ordered, limited answer.
type TopK struct {
	Key   int // column the rows are ordered by (descending)
	Limit int
}

// Suite is Q1–Q9 of issue 5. The Quiver texts are the issue's, verbatim;
// Kùzu's differ only where its dialect does (Q7's shortest path).
var Suite = []Query{
	{Name: "Q1", Quiver: "MATCH (p:Person) WHERE p.age > 30 RETURN count(*)"},
	{Name: "Q2", Quiver: "MATCH (p:Person) RETURN p.city, count(*), avg(p.age) ORDER BY count(*) DESC LIMIT 10",
		TopK: &TopK{Key: 1, Limit: 10}},
	{Name: "Q3", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN count(*)"},
	{Name: "Q4", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS]->()-[:KNOWS]->(c) RETURN count(DISTINCT c)"},
	{Name: "Q5", Quiver: "MATCH (a:Person)-[:KNOWS]->(b)-[:KNOWS]->(c) RETURN count(*)"},
	// Variable-length: Cypher's trail semantics (Quiver) and Kùzu's walk
	// semantics reach the same set of nodes within 3 hops (a shortest
	// walk is a path), so count(DISTINCT c) agrees.
	{Name: "Q6", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS*1..3]->(c) RETURN count(DISTINCT c)"},
	{Name: "Q7",
		Quiver: "MATCH (a:Person {id: 42}), (b:Person {id: 4242}) MATCH p = shortestPath((a)-[:KNOWS*1..10]->(b)) RETURN length(p)",
		Kuzu:   "MATCH p = (a:Person {id: 42})-[:KNOWS* SHORTEST 1..10]->(b:Person {id: 4242}) RETURN length(p)"},
	{Name: "Q8", Quiver: "MATCH (a:Person)-[:KNOWS]->(b) RETURN a.id, count(*) AS d ORDER BY d DESC LIMIT 10",
		TopK: &TopK{Key: 1, Limit: 10}},
	{Name: "Q9", Quiver: "MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE k.since > 2015 AND b.age < 25 RETURN a.city, count(*) ORDER BY count(*) DESC LIMIT 5",
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
