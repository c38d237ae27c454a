package http

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/arrowio"
)

// TestArrowTypedLists: a LIST column whose elements the plan knows to
// be of one scalar type travels as a typed list; one it does not know
// (mixed literals, properties, parameters, a UNION of two element types)
// as list<VALUE>; the values read back equal the JSON answer's.
func TestArrowTypedLists(t *testing.T) {
	db := openDB(t, engine.Options{})
	base := startServer(t, Config{}, db)
	if a := postQuery(t, base, `{"query":"CREATE (:P {xs: [1, 2], name: 'a b'})"}`, ""); a.status != 200 {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	for _, c := range []struct{ query, want string }{
		{`UNWIND range(1, 3) AS i RETURN [i, i + 1, null] AS l`, "list<item: int64, nullable>"},
		{`RETURN [0.5, null, 2.0] AS l`, "list<item: float64, nullable>"},
		{`RETURN ['a', null] AS l`, "list<item: utf8, nullable>"},
		{`RETURN [true, false, null] AS l`, "list<item: bool, nullable>"},
		{`RETURN range(1, 5) AS l`, "list<item: int64, nullable>"},
		{`MATCH (p:P) RETURN split(p.name, ' ') AS l`, "list<item: utf8, nullable>"},
		{`MATCH (p:P) RETURN labels(p) AS l`, "list<item: utf8, nullable>"},
		{`MATCH (p:P) WITH keys(p) AS k RETURN k AS l`, "list<item: utf8, nullable>"},
		{`WITH [1, 2] AS x RETURN x AS l`, "list<item: int64, nullable>"},
		{`RETURN [1, 'a'] AS l`, "list<item: dense_union"},
		{`MATCH (p:P) RETURN p.xs AS l`, "dense_union"}, // a property: ANY
		{`MATCH (p:P) RETURN [p.xs[0]] AS l`, "list<item: dense_union"},
		{`RETURN [1] AS l UNION ALL RETURN ['a'] AS l`, "list<item: dense_union"},
		{`RETURN [1] AS l UNION ALL RETURN [2, null] AS l`, "list<item: int64, nullable>"},
	} {
		a := postQuery(t, base, `{"query":"`+c.query+`"}`, arrowio.MediaType)
		if a.status != 200 {
			t.Fatalf("%s: %d %s", c.query, a.status, a.body)
		}
		rd, err := ipc.NewReader(bytes.NewReader(a.body))
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		got := rd.Schema().Field(0).Type.String()
		rd.Release()
		if !bytes.HasPrefix([]byte(got), []byte(c.want)) {
			t.Errorf("%s: the column is %s, want %s…", c.query, got, c.want)
		}
		fromArrow, err := readArrowAnswer(t, c.query, a.body)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		fromJSON := decodeJSONAnswer(t, c.query, postQuery(t, base, `{"query":"`+c.query+`"}`, ""))
		if len(fromArrow.rows) != len(fromJSON.rows) || len(fromJSON.rows) == 0 {
			t.Fatalf("%s: %d rows as Arrow, %d as JSON", c.query, len(fromArrow.rows), len(fromJSON.rows))
		}
		for i := range fromJSON.rows {
			if fromArrow.rows[i] != fromJSON.rows[i] {
				t.Errorf("%s row %d: Arrow %s, JSON %s", c.query, i, fromArrow.rows[i], fromJSON.rows[i])
			}
		}
	}
}
