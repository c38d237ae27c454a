package bench

// SNBSuite is the query suite of the SNB-like data set (SNBDataset):
// shapes across several labels and relationship types, each answer
// compared with Kùzu's. The texts are the same in both engines unless
// Kuzu is set (S01: Kùzu's label(n) is Cypher's labels(n)[0]). Where
// Cypher's relationship uniqueness (trails) and Kùzu's walks could differ
// (a walk back to where it started over the same relationship), the far
// end is required to differ from the start.
var SNBSuite = []Query{
	// Several labels in one query.
	{Name: "S01", Shape: "nodes per label",
		Quiver: "MATCH (n) RETURN labels(n)[0] AS label, count(*) AS n",
		Kuzu:   "MATCH (n) RETURN label(n) AS label, count(*) AS n"},
	{Name: "S02", Shape: "UNION ALL of counts", Quiver: "MATCH (p:Post) WHERE p.creationYear >= 2020 RETURN 'Post' AS kind, count(*) AS n " +
		"UNION ALL MATCH (c:Comment) WHERE c.creationYear >= 2020 RETURN 'Comment' AS kind, count(*) AS n"},
	{Name: "S03", Shape: "messages per person top-10", Quiver: "MATCH (p:Person)<-[:HAS_CREATOR]-(m) RETURN p.id, count(*) AS n ORDER BY n DESC LIMIT 10",
		TopK: &TopK{Key: 1, Limit: 10}},
	// Aggregation keyed by a node over an expansion, filtered on the count.
	{Name: "S04", Shape: "posts per person WITH filter", Quiver: "MATCH (p:Person)<-[:HAS_CREATOR]-(m:Post) WITH p, count(m) AS posts WHERE posts >= 20 RETURN count(*), sum(posts), max(posts)"},
	{Name: "S05", Shape: "likes per post WITH filter", Quiver: "MATCH (m:Post)<-[l:LIKES]-(p:Person) WHERE l.creationYear >= 2015 WITH m, count(*) AS likes WHERE likes > 50 RETURN count(*), sum(likes), max(likes)"},
	// OPTIONAL MATCH with count, zero included.
	{Name: "S06", Shape: "optional comments per person", Quiver: "MATCH (p:Person) WHERE p.city = 'City001' OPTIONAL MATCH (p)<-[:HAS_CREATOR]-(c:Comment) WITH p, count(c) AS n RETURN count(*), sum(n), max(n), min(n)"},
	{Name: "S07", Shape: "optional posts per tag histogram", Quiver: "MATCH (t:Tag) OPTIONAL MATCH (t)<-[:HAS_TAG]-(m:Post) WHERE m.language = 'ar' WITH t, count(m) AS n RETURN n, count(*) AS tags ORDER BY n LIMIT 5",
		Ordered: true},
	// Group-by over all relationships of a type.
	{Name: "S08", Shape: "posts per tag name top-10", Quiver: "MATCH (m:Post)-[:HAS_TAG]->(t:Tag) RETURN t.name, count(*) AS n ORDER BY n DESC LIMIT 10",
		TopK: &TopK{Key: 1, Limit: 10}},
	{Name: "S09", Shape: "posts per forum top-10", Quiver: "MATCH (f:Forum)-[:CONTAINER_OF]->(m:Post) RETURN f.id, f.title, count(*) AS posts, avg(m.length) AS len ORDER BY posts DESC LIMIT 10",
		TopK: &TopK{Key: 2, Limit: 10}},
	{Name: "S10", Shape: "posts by language and year", Quiver: "MATCH (m:Post) RETURN m.language, m.creationYear, count(*) AS n"},
	{Name: "S11", Shape: "posts per city top-5", Quiver: "MATCH (c:City)<-[:IS_LOCATED_IN]-(p:Person)<-[:HAS_CREATOR]-(m:Post) RETURN c.name, count(*) AS n ORDER BY n DESC LIMIT 5",
		TopK: &TopK{Key: 1, Limit: 5}},
	// Top-k, then a further expansion.
	{Name: "S12", Shape: "top likes received then friends", Quiver: "MATCH (p:Person)<-[:HAS_CREATOR]-(:Post)<-[:LIKES]-(:Person) WITH p, count(*) AS likes ORDER BY likes DESC, p.id LIMIT 10 " +
		"MATCH (p)-[:KNOWS]-(f:Person) RETURN count(*), count(DISTINCT f)"},
	{Name: "S13", Shape: "biggest forums then likers", Quiver: "MATCH (f:Forum)-[:HAS_MEMBER]->(p:Person) WITH f, count(*) AS members ORDER BY members DESC, f.id LIMIT 5 " +
		"MATCH (f)-[:CONTAINER_OF]->(m:Post)<-[:LIKES]-(l:Person) RETURN count(*), count(DISTINCT l)"},
	// Multi-hop over several types from one person.
	{Name: "S14", Shape: "friends of friends far-end filter", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS]-(b:Person)-[:KNOWS]-(c:Person) WHERE c <> a AND c.birthYear >= 1990 RETURN count(DISTINCT c)"},
	{Name: "S15", Shape: "friends' post tags top-10", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS]-(f:Person)<-[:HAS_CREATOR]-(m:Post)-[:HAS_TAG]->(t:Tag) RETURN t.name, count(*) AS n ORDER BY n DESC, t.name LIMIT 10",
		Ordered: true},
	{Name: "S16", Shape: "KNOWS*1..2 then posts", Quiver: "MATCH (a:Person {id: 42})-[:KNOWS*1..2]-(f:Person) WHERE f <> a WITH DISTINCT f MATCH (f)<-[:HAS_CREATOR]-(m:Post) RETURN count(*), count(DISTINCT f)"},
	{Name: "S17", Shape: "reply chains *1..3 to posts", Quiver: "MATCH (c:Comment)-[:REPLY_OF*1..3]->(m:Post) WHERE m.language = 'ja' RETURN count(*), count(DISTINCT m)"},
	// IN-lists and string predicates on names.
	{Name: "S18", Shape: "interests IN-list of tags", Quiver: "MATCH (p:Person)-[:HAS_INTEREST]->(t:Tag) WHERE t.name IN ['Music0', 'Jazz1', 'Chess0', 'Wine1', 'Trains0'] RETURN t.name, count(*) AS n"},
	{Name: "S19", Shape: "tag STARTS WITH and language IN", Quiver: "MATCH (m:Post)-[:HAS_TAG]->(t:Tag) WHERE t.name STARTS WITH 'Jazz' AND m.language IN ['en', 'de'] RETURN count(*), count(DISTINCT t)"},
	{Name: "S20", Shape: "title CONTAINS, name ENDS WITH", Quiver: "MATCH (f:Forum)-[:HAS_MEMBER]->(p:Person) WHERE f.title CONTAINS 'Chess' AND p.lastName ENDS WITH 'on' RETURN count(*)"},
	// Cycles over several types (the nodes' labels keep them apart), on a
	// sample of persons (born in 1990, about 1 in 55).
	{Name: "S21", Shape: "comments on friends' posts", Quiver: "MATCH (a:Person)<-[:HAS_CREATOR]-(c:Comment)-[:REPLY_OF]->(m:Post)-[:HAS_CREATOR]->(b:Person)-[:KNOWS]-(a) WHERE a.birthYear = 1990 RETURN count(*)"},
	{Name: "S22", Shape: "liked posts on own interests", Quiver: "MATCH (p:Person)-[:LIKES]->(m:Post)-[:HAS_TAG]->(t:Tag)<-[:HAS_INTEREST]-(p) WHERE p.birthYear = 1990 RETURN count(*), count(DISTINCT p)"},
	// Lookups by id without a single label, as LDBC's short reads write
	// them (ids are one namespace over all labels; 42 is a person at
	// every scale, the list spans the blocks of labels at M). Kùzu's
	// (m:Post:Comment) is either label.
	{Name: "S23", Shape: "lookup by id without a label", Quiver: "MATCH (m {id: 42}) RETURN labels(m)[0] AS label, m.id",
		Kuzu: "MATCH (m {id: 42}) RETURN label(m) AS label, m.id"},
	{Name: "S24", Shape: "messages by ids, Post or Comment", Quiver: "MATCH (m) WHERE m:Post|Comment AND m.id IN [42, 3000, 30000, 300000, 600000, 900000] RETURN count(*)",
		Kuzu: "MATCH (m:Post:Comment) WHERE m.id IN [42, 3000, 30000, 300000, 600000, 900000] RETURN count(*)"},
}
