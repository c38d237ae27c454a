package bench

// WideSuite is issue 17's wider suite over the same Person/KNOWS graph as
// Suite: ordinary analytic shapes beyond the nine, each answer compared
// with Kùzu's. The names say the shape; the texts are the same in both
// engines unless Kuzu is set. Where Cypher's relationship uniqueness and
// Kùzu's walk semantics could differ (a cycle that reuses a
// relationship), the pattern's nodes are required distinct, which rules
// such walks out in both. Every query has a SQL form (Query.SQL) but
// W27 and W28, the variable-length paths. In SQL the same uniqueness
// holds without a test: no relationship is a self-loop, so the joined
// relationships of each cyclic pattern are distinct once its nodes are.
var WideSuite = []Query{
	// Aggregation keyed by a node over an expansion, through WITH, with a
	// filter on the aggregate; both directions and undirected.
	{Name: "W01", Shape: "in-degree WITH filter", Quiver: "MATCH (a:Person)<-[:KNOWS]-(b:Person) WITH a, count(b) AS d WHERE d > 100 RETURN count(*), sum(d)",
		SQL: "SELECT count(*), sum(d) FROM (SELECT dst, count(*) AS d FROM knows GROUP BY dst) WHERE d > 100"},
	{Name: "W02", Shape: "out-degree WITH filter", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person) WITH a, count(b) AS d WHERE d >= 50 RETURN count(*), sum(d)",
		SQL: "SELECT count(*), sum(d) FROM (SELECT src, count(*) AS d FROM knows GROUP BY src) WHERE d >= 50"},
	{Name: "W03", Shape: "in-degree top-10", Quiver: "MATCH (a:Person)<-[:KNOWS]-(b:Person) RETURN a.id, count(*) AS d ORDER BY d DESC LIMIT 10",
		SQL:  "SELECT dst, count(*) AS d FROM knows GROUP BY dst ORDER BY d DESC LIMIT 10",
		TopK: &TopK{Key: 1, Limit: 10}},
	{Name: "W04", Shape: "degree histogram", Quiver: "MATCH (a:Person)-[:KNOWS]->(b) WITH a, count(b) AS d RETURN d, count(*) AS n ORDER BY d LIMIT 20",
		SQL:     "SELECT d, count(*) AS n FROM (SELECT src, count(*) AS d FROM knows GROUP BY src) GROUP BY d ORDER BY d LIMIT 20",
		Ordered: true},
	{Name: "W05", Shape: "undirected degree filter", Quiver: "MATCH (a:Person)-[:KNOWS]-(b:Person) WITH a, count(*) AS d WHERE d > 200 RETURN count(*), max(d)",
		SQL: "SELECT count(*), max(d) FROM (SELECT id, count(*) AS d FROM (SELECT src AS id FROM knows UNION ALL SELECT dst FROM knows) GROUP BY id) WHERE d > 200"},
	{Name: "W06", Shape: "far-end avg per node", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person) WITH a, avg(b.age) AS m WHERE m > 70 RETURN count(*)",
		SQL: "SELECT count(*) FROM (SELECT k.src, avg(b.age) AS m FROM knows k JOIN person b ON b.id = k.dst GROUP BY k.src) WHERE m > 70"},
	{Name: "W07", Shape: "far-end sum from one node", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS]->(b:Person) RETURN sum(b.age), count(*)",
		SQL: "SELECT sum(b.age), count(*) FROM knows k JOIN person b ON b.id = k.dst WHERE k.src = 42"},
	// OPTIONAL MATCH with aggregation (degree 0 included).
	{Name: "W08", Shape: "optional degree top-10", Quiver: "MATCH (a:Person) WHERE a.age = 30 OPTIONAL MATCH (a)-[:KNOWS]->(b:Person) RETURN a.id, count(b) AS d ORDER BY d DESC, a.id LIMIT 10",
		SQL:     "SELECT a.id, count(k.dst) AS d FROM person a LEFT JOIN knows k ON k.src = a.id WHERE a.age = 30 GROUP BY a.id ORDER BY d DESC, a.id LIMIT 10",
		Ordered: true},
	{Name: "W09", Shape: "optional zero out-degree", Quiver: "MATCH (a:Person) OPTIONAL MATCH (a)-[:KNOWS]->(b:Person) WITH a, count(b) AS d WHERE d = 0 RETURN count(*)",
		SQL: "SELECT count(*) FROM (SELECT a.id, count(k.dst) AS d FROM person a LEFT JOIN knows k ON k.src = a.id GROUP BY a.id) WHERE d = 0"},
	{Name: "W10", Shape: "optional in-degree stats", Quiver: "MATCH (a:Person) WHERE a.city = 'City010' OPTIONAL MATCH (a)<-[:KNOWS]-(b:Person) WITH a, count(b) AS d RETURN count(*), sum(d), max(d)",
		SQL: "SELECT count(*), sum(d), max(d) FROM (SELECT a.id, count(k.src) AS d FROM person a LEFT JOIN knows k ON k.dst = a.id WHERE a.city = 'City010' GROUP BY a.id)"},
	// Group-by over all relationships by endpoint and relationship
	// properties.
	{Name: "W11", Shape: "group by both cities", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person) RETURN a.city, b.city, count(*) AS n ORDER BY n DESC LIMIT 10",
		SQL:  "SELECT a.city, b.city, count(*) AS n FROM knows k JOIN person a ON a.id = k.src JOIN person b ON b.id = k.dst GROUP BY a.city, b.city ORDER BY n DESC LIMIT 10",
		TopK: &TopK{Key: 2, Limit: 10}},
	{Name: "W12", Shape: "group by since", Quiver: "MATCH (a:Person)-[k:KNOWS]->(b:Person) RETURN k.since, count(*)",
		SQL: "SELECT since, count(*) FROM knows GROUP BY since"},
	{Name: "W13", Shape: "group by city and since", Quiver: "MATCH (a:Person)-[k:KNOWS]->(b:Person) RETURN a.city, k.since, count(*) AS n ORDER BY n DESC LIMIT 10",
		SQL:  "SELECT a.city, k.since, count(*) AS n FROM knows k JOIN person a ON a.id = k.src GROUP BY a.city, k.since ORDER BY n DESC LIMIT 10",
		TopK: &TopK{Key: 2, Limit: 10}},
	{Name: "W14", Shape: "endpoint comparison", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person) WHERE a.age < b.age RETURN count(*)",
		SQL: "SELECT count(*) FROM knows k JOIN person a ON a.id = k.src JOIN person b ON b.id = k.dst WHERE a.age < b.age"},
	// Cyclic patterns.
	{Name: "W15", Shape: "triangles 2% sample", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person)-[:KNOWS]->(c:Person)-[:KNOWS]->(a) WHERE a.id % 50 = 0 RETURN count(*)",
		SQL: "SELECT count(*) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst JOIN knows k3 ON k3.src = k2.dst AND k3.dst = k1.src WHERE k1.src % 50 = 0"},
	{Name: "W16", Shape: "triangles at one node", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS]->(b:Person)-[:KNOWS]->(c:Person), (a)-[:KNOWS]->(c) RETURN count(*)",
		SQL: "SELECT count(*) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst JOIN knows k3 ON k3.src = k1.src AND k3.dst = k2.dst WHERE k1.src = 42"},
	{Name: "W17", Shape: "4-cycles 0.01% sample", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person)-[:KNOWS]->(c:Person)-[:KNOWS]->(d:Person)-[:KNOWS]->(a) WHERE a.id % 10000 = 0 AND a <> c AND b <> d RETURN count(*)",
		SQL: "SELECT count(*) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst JOIN knows k3 ON k3.src = k2.dst JOIN knows k4 ON k4.src = k3.dst AND k4.dst = k1.src WHERE k1.src % 10000 = 0 AND k1.src <> k2.dst AND k1.dst <> k3.dst"},
	{Name: "W18", Shape: "diamonds 0.1% sample", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person)-[:KNOWS]->(d:Person), (a)-[:KNOWS]->(c:Person)-[:KNOWS]->(d) WHERE a.id % 1000 = 0 AND b.id < c.id RETURN count(*)",
		SQL: "SELECT count(*) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst JOIN knows k3 ON k3.src = k1.src JOIN knows k4 ON k4.src = k3.dst AND k4.dst = k2.dst WHERE k1.src % 1000 = 0 AND k1.dst < k3.dst"},
	// Top-k, then a further expansion.
	{Name: "W19", Shape: "top hubs then 2 hops", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person) WITH a, count(*) AS d ORDER BY d DESC, a.id LIMIT 10 MATCH (a)-[:KNOWS]->(c:Person)-[:KNOWS]->(e:Person) RETURN count(DISTINCT e)",
		SQL: "WITH hubs AS (SELECT src AS id FROM knows GROUP BY src ORDER BY count(*) DESC, src LIMIT 10) SELECT count(DISTINCT k2.dst) FROM hubs h JOIN knows k1 ON k1.src = h.id JOIN knows k2 ON k2.src = k1.dst"},
	{Name: "W20", Shape: "oldest then expand", Quiver: "MATCH (a:Person) WITH a ORDER BY a.age DESC, a.id LIMIT 100 MATCH (a)-[:KNOWS]->(b:Person) RETURN count(*), avg(b.age)",
		SQL: "WITH old AS (SELECT id FROM person ORDER BY age DESC, id LIMIT 100) SELECT count(*), avg(b.age) FROM old a JOIN knows k ON k.src = a.id JOIN person b ON b.id = k.dst"},
	// IN-lists and string predicates.
	{Name: "W21", Shape: "IN-list", Quiver: "MATCH (p:Person) WHERE p.city IN ['City001', 'City005', 'City050', 'City150'] RETURN count(*)",
		SQL: "SELECT count(*) FROM person WHERE city IN ('City001', 'City005', 'City050', 'City150')"},
	{Name: "W22", Shape: "STARTS WITH", Quiver: "MATCH (p:Person) WHERE p.name STARTS WITH 'Grace' RETURN count(*)",
		SQL: "SELECT count(*) FROM person WHERE name LIKE 'Grace%'"},
	{Name: "W23", Shape: "CONTAINS and range", Quiver: "MATCH (p:Person) WHERE p.name CONTAINS 'Knuth' AND p.age > 60 RETURN count(*)",
		SQL: "SELECT count(*) FROM person WHERE name LIKE '%Knuth%' AND age > 60"},
	{Name: "W24", Shape: "string and IN across an edge", Quiver: "MATCH (p:Person)-[:KNOWS]->(q:Person) WHERE p.name ENDS WITH 'Hopper' AND q.city IN ['City000', 'City001'] RETURN count(*)",
		SQL: "SELECT count(*) FROM knows k JOIN person p ON p.id = k.src JOIN person q ON q.id = k.dst WHERE p.name LIKE '%Hopper' AND q.city IN ('City000', 'City001')"},
	// Batches of point lookups.
	{Name: "W25", Shape: "UNWIND 1000 lookups", Quiver: "UNWIND range(0, 999) AS i MATCH (p:Person {id: i * 997}) RETURN count(*), sum(p.age)",
		SQL: "SELECT count(*), sum(p.age) FROM generate_series(0, 999) t(i) JOIN person p ON p.id = t.i * 997"},
	{Name: "W26", Shape: "UNWIND 100 lookups expand", Quiver: "UNWIND range(0, 99) AS i MATCH (p:Person {id: i * 9973})-[:KNOWS]->(q:Person) RETURN count(*)",
		SQL: "SELECT count(*) FROM generate_series(0, 99) t(i) JOIN person p ON p.id = t.i * 9973 JOIN knows k ON k.src = p.id"},
	// Variable-length paths with a filter on the far end.
	{Name: "W27", Shape: "1..2 hops far-end filter", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS*1..2]->(c:Person) WHERE c.age > 70 RETURN count(DISTINCT c)"},
	{Name: "W28", Shape: "1..3 hops far-end city", Quiver: "MATCH (a:Person {id: 4242})-[:KNOWS*1..3]->(c:Person) WHERE c.city = 'City007' RETURN count(DISTINCT c)"},
	// Large ORDER BY with several keys.
	{Name: "W29", Shape: "order by 3 keys", Quiver: "MATCH (p:Person) RETURN p.id, p.age, p.city ORDER BY p.age DESC, p.city, p.id LIMIT 20",
		SQL:     "SELECT id, age, city FROM person ORDER BY age DESC, city, id LIMIT 20",
		Ordered: true},
	// At S, Kùzu 0.11.3 leaves six of the 50 rows out (ids of a name's
	// ties: Ada Backus 82664, age 20, among them); DuckDB, Quiver and a
	// sort of the CSV agree.
	{Name: "W30", Shape: "order by name", Quiver: "MATCH (p:Person) WHERE p.age < 25 RETURN p.name, p.id ORDER BY p.name, p.id DESC LIMIT 50",
		SQL:        "SELECT name, id FROM person WHERE age < 25 ORDER BY name, id DESC LIMIT 50",
		Ordered:    true,
		KuzuDefect: "Kùzu 0.11.3 orders the ties of a name by id wrongly (rows of the answer left out)"},
	// DISTINCT over projected properties.
	{Name: "W31", Shape: "count DISTINCT name", Quiver: "MATCH (p:Person) RETURN count(DISTINCT p.name)",
		SQL: "SELECT count(DISTINCT name) FROM person"},
	{Name: "W32", Shape: "DISTINCT far-end city", Quiver: "MATCH (p:Person)-[:KNOWS]->(q:Person) WHERE p.age = 40 RETURN DISTINCT q.city",
		SQL: "SELECT DISTINCT q.city FROM knows k JOIN person p ON p.id = k.src JOIN person q ON q.id = k.dst WHERE p.age = 40"},
	{Name: "W33", Shape: "DISTINCT pairs", Quiver: "MATCH (p:Person) WITH DISTINCT p.city AS c, p.age AS a RETURN count(*)",
		SQL: "SELECT count(*) FROM (SELECT DISTINCT city, age FROM person)"},
	// Relational shapes (issue 30): a sort over every node, top-k and
	// with SKIP; a join of nodes on equal property values; point, prefix,
	// range and substring filters over the node table; a two-hop count
	// filtered at both ends.
	{Name: "W34", Shape: "top-k over all nodes", Quiver: "MATCH (p:Person) RETURN p.id, p.age ORDER BY p.age DESC, p.id LIMIT 10",
		SQL:     "SELECT id, age FROM person ORDER BY age DESC, id LIMIT 10",
		Ordered: true},
	// Only the name: Kùzu 0.11.3 orders the ties of a name by id wrongly
	// past a large SKIP (ORDER BY p.name, p.id SKIP 50000 answers other
	// ids than DuckDB, Quiver and a sort of the CSV do).
	{Name: "W35", Shape: "order by name SKIP", Quiver: "MATCH (p:Person) RETURN p.name ORDER BY p.name SKIP 50000 LIMIT 10",
		SQL:     "SELECT name FROM person ORDER BY name OFFSET 50000 LIMIT 10",
		Ordered: true},
	{Name: "W36", Shape: "join on equal properties", Quiver: "MATCH (a:Person {id: 42}), (b:Person) WHERE b.age = a.age AND b.city = a.city AND b <> a RETURN count(*)",
		SQL: "SELECT count(*) FROM person a JOIN person b ON b.age = a.age AND b.city = a.city WHERE a.id = 42 AND b.id <> a.id"},
	{Name: "W37", Shape: "IN over ids", Quiver: "MATCH (p:Person) WHERE p.id IN [1, 42, 4242, 9999, 31337, 77777, 99999] RETURN count(*), sum(p.age)",
		SQL: "SELECT count(*), sum(age) FROM person WHERE id IN (1, 42, 4242, 9999, 31337, 77777, 99999)"},
	{Name: "W38", Shape: "STARTS WITH and range", Quiver: "MATCH (p:Person) WHERE p.name STARTS WITH 'Ada' AND p.age >= 30 AND p.age < 40 RETURN count(*)",
		SQL: "SELECT count(*) FROM person WHERE name LIKE 'Ada%' AND age >= 30 AND age < 40"},
	{Name: "W39", Shape: "CONTAINS", Quiver: "MATCH (p:Person) WHERE p.name CONTAINS 'ove' RETURN count(*)",
		SQL: "SELECT count(*) FROM person WHERE name LIKE '%ove%'"},
	{Name: "W40", Shape: "2 hops, both ends filtered", Quiver: "MATCH (a:Person)-[:KNOWS]->(b:Person)-[:KNOWS]->(c:Person) WHERE a.age = 30 AND c.city = 'City001' RETURN count(*)",
		SQL: "SELECT count(*) FROM person a JOIN knows k1 ON k1.src = a.id JOIN knows k2 ON k2.src = k1.dst JOIN person c ON c.id = k2.dst WHERE a.age = 30 AND c.city = 'City001'"},
}
