package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/quiverdb/quiver/client"
)

// The examples run against a stand-in for `quiver serve` on a loopback
// port (see wire_fake_test.go): the client's tests may not import the
// server's packages.

func ExampleDialTCP() {
	addr, stop := wireExampleServer()
	defer stop()
	ctx := context.Background()
	s, err := client.DialTCP(ctx, addr, &client.WireOptions{Client: "example"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	rows, err := s.Run(ctx, "UNWIND range(1, 3) AS i RETURN i", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		fmt.Println(rows.Row()["i"])
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("rows:", rows.Summary()["rows"])
	// Output:
	// 1
	// 2
	// 3
	// rows: 3
}

// A large result streams: WireRows pulls FetchSize rows at a time as it
// is read, and Close discards what is left on the server.
func ExampleWireRows() {
	addr, stop := wireExampleServer()
	defer stop()
	ctx := context.Background()
	s, err := client.DialTCP(ctx, addr, &client.WireOptions{FetchSize: 500})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	rows, err := s.Run(ctx, "UNWIND range(1, 1000000) AS i RETURN i", nil)
	if err != nil {
		log.Fatal(err)
	}
	var sum int64
	for rows.Next() {
		i := rows.Row()["i"].(int64)
		sum += i
		if i == 2000 {
			break
		}
	}
	if err := rows.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum, rows.Summary()["discarded"])
	// Output: 2001000 true
}

func ExampleWireSession_Begin() {
	addr, stop := wireExampleServer()
	defer stop()
	ctx := context.Background()
	s, err := client.DialTCP(ctx, addr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	tx, err := s.Begin(ctx, "SERIALIZABLE")
	if err != nil {
		log.Fatal(err)
	}
	rows, err := tx.Run(ctx, "CONFLICT", nil) // the stand-in's write that loses a race
	if err != nil {
		log.Fatal(err)
	}
	rows.Close()
	err = tx.Commit(ctx)
	var e *client.Error
	if errors.As(err, &e) && e.Code == "40001" {
		fmt.Println("serialization failure: retry the transaction")
	}
	// Output: serialization failure: retry the transaction
}

func ExampleError() {
	addr, stop := wireExampleServer()
	defer stop()
	ctx := context.Background()
	s, err := client.DialTCP(ctx, addr, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	_, err = s.Run(ctx, "FAIL", nil)
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Line, e.Column)
	}
	// Output: 42000 1 1
}

func wireExampleServer() (string, func()) { return client.StartFakeWireServer() }
