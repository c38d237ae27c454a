package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/client"
)

func ExampleHTTPClient_Query() {
	url, stop := exampleServer() // your server's URL, such as http://127.0.0.1:3141
	defer stop()
	c := client.NewHTTP(url)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // also the query's timeout
	defer cancel()

	if _, err := c.Query(ctx, "CREATE (:City {name: $name, population: $pop})", map[string]any{"name": "Lyon", "pop": 522250}); err != nil {
		fmt.Println(err)
		return
	}
	res, err := c.Query(ctx, "MATCH (c:City) RETURN c.name AS name, c.population AS population", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, col := range res.Columns {
		fmt.Printf("%s %s\n", col.Name, col.Type)
	}
	for _, row := range res.Rows {
		fmt.Println(row[0], row[1])
	}
	// Output:
	// name STRING
	// population INTEGER
	// Lyon 522250
}

func ExampleHTTPClient_Begin() {
	url, stop := exampleServer()
	defer stop()
	c := client.NewHTTP(url)
	ctx := context.Background()

	tx, err := c.Begin(ctx, "SERIALIZABLE", time.Minute)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, q := range []string{"CREATE (:Account {id: 1, balance: 100})", "SAVEPOINT opened", "CREATE (:Account {id: 2, balance: 5})"} {
		if _, err := tx.Query(ctx, q, nil); err != nil {
			fmt.Println(err)
			_ = tx.Rollback(ctx)
			return
		}
	}
	if err := tx.RollbackTo(ctx, "opened"); err != nil { // undoes the second account
		fmt.Println(err)
		return
	}
	if err := tx.Commit(ctx); err != nil {
		fmt.Println(err) // a 40001 serialization failure: run the transaction again
		return
	}
	res, _ := c.Query(ctx, "MATCH (a:Account) RETURN count(*) AS accounts", nil)
	fmt.Println(res.Map(0)["accounts"])
	// Output: 1
}

func ExampleHTTPClient_Batch() {
	url, stop := exampleServer()
	defer stop()
	c := client.NewHTTP(url)
	ctx := context.Background()

	br, err := c.Batch(ctx, []client.Statement{
		{Query: "CREATE (:Tag {name: $n})", Parameters: map[string]any{"n": "go"}},
		{Query: "RETURN 1 / 0 AS oops"},
		{Query: "MATCH (t:Tag) RETURN t.name AS name"},
	}, false) // each on its own: the failure does not stop the others
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range br.Results {
		switch {
		case e.Err != nil:
			fmt.Println(e.Index, "failed:", e.Err.Code)
		default:
			fmt.Println(e.Index, "rows:", e.Result.Rows)
		}
	}
	// Output:
	// 0 rows: []
	// 1 failed: 22012
	// 2 rows: [[go]]
}

func ExampleError_http() {
	url, stop := exampleServer()
	defer stop()
	c := client.NewHTTP(url)

	_, err := c.Query(context.Background(), "MATCH (n)\nRETRUN n", nil)
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code, e.Category, e.Line, e.Column)
		// A 429 (Code "RATE_LIMIT_EXCEEDED") says in e.RetryAfter how many
		// seconds to wait; retry a 503 with backoff.
	}
	// Output: 400 42000 SYNTAX_ERROR 2 1
}

func ExampleHTTPClient_QueryArrow() {
	url, stop := exampleServer()
	defer stop()
	c := client.NewHTTP(url)
	ctx := context.Background()

	rd, err := c.QueryArrow(ctx, "UNWIND range(1, $n) AS i RETURN i, date({year: 2024, month: 1, day: i}) AS day",
		map[string]any{"n": 3})
	if err != nil {
		fmt.Println(err) // an error before the first batch
		return
	}
	defer rd.Release()
	for _, f := range rd.Schema().Fields() {
		typ, _ := f.Metadata.GetValue("quiver.type")
		fmt.Printf("%s %s (%s)\n", f.Name, f.Type, typ)
	}
	for rd.Next() {
		rec := rd.RecordBatch()
		ids := rec.Column(0).(*array.Int64)
		days := rec.Column(1).(*array.Date32)
		for i := 0; i < int(rec.NumRows()); i++ {
			fmt.Println(ids.Value(i), days.Value(i).FormattedString())
		}
	}
	if err := rd.Err(); err != nil {
		fmt.Println(err) // the query failed while its rows streamed
	}
	// Output:
	// i int64 (INTEGER)
	// day date32 (DATE)
	// 1 2024-01-01
	// 2 2024-01-02
	// 3 2024-01-03
}
