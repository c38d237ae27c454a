package wire

import (
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

func TestTransactions(t *testing.T) {
	db := openDB(t)
	_, addr := startTCP(t, Config{}, db)
	a, b := dial(t, addr), dial(t, addr)
	count := func(c *tconn) int64 {
		t.Helper()
		return num(t, c.ok(`MATCH (n:T) RETURN count(n) AS c`).rows[0]["c"])
	}

	// Commit: visible to others only after COMMIT.
	a.send(`{"type":"BEGIN","isolation_level":"REPEATABLE_READ","timeout_ms":60000}`)
	m := a.expect("SUCCESS")
	id, _ := m["transaction_id"].(string)
	if id == "" {
		t.Fatalf("BEGIN answered %v", m)
	}
	r := a.run(`CREATE (:T {k: 1})`, map[string]any{"transaction_id": id})
	if r.err != nil || r.success["transaction_id"] != id {
		t.Fatalf("RUN_GQL in the transaction: %v %v", r.err, r.success)
	}
	if n := count(a); n != 1 { // without transaction_id: in the open transaction too
		t.Errorf("inside: %d nodes", n)
	}
	if n := count(b); n != 0 {
		t.Errorf("another session sees %d uncommitted nodes", n)
	}
	a.sendMsg(map[string]any{"type": "COMMIT", "transaction_id": id})
	m = a.expect("SUCCESS")
	if sum, _ := m["summary"].(map[string]any); sum["committed"] != true || m["transaction_id"] != id {
		t.Errorf("COMMIT answered %v", m)
	}
	if n := count(b); n != 1 {
		t.Errorf("after commit another session sees %d nodes", n)
	}

	// Rollback: never visible.
	a.send(`{"type":"BEGIN"}`)
	a.expect("SUCCESS")
	a.ok(`CREATE (:T {k: 2})`)
	a.send(`{"type":"ROLLBACK"}`)
	a.expect("SUCCESS")
	if n := count(b); n != 1 {
		t.Errorf("after rollback: %d nodes", n)
	}
	if n := count(a); n != 1 {
		t.Errorf("after rollback, its own session: %d nodes", n)
	}

	// Conflict: two writers of one node; the second commit fails 40001.
	for _, c := range []*tconn{a, b} {
		c.send(`{"type":"BEGIN","isolation_level":"REPEATABLE_READ"}`)
		c.expect("SUCCESS")
	}
	a.ok(`MATCH (n:T {k: 1}) SET n.v = 'a'`)
	b.ok(`MATCH (n:T {k: 1}) SET n.v = 'b'`)
	a.send(`{"type":"COMMIT"}`)
	a.expect("SUCCESS")
	b.send(`{"type":"COMMIT"}`)
	b.expectError(engine.CodeSerialization)
	if v := a.ok(`MATCH (n:T {k: 1}) RETURN n.v AS v`).rows[0]["v"]; v != "a" {
		t.Errorf("after the conflict v = %v", v)
	}
	// b's transaction ended with its failed commit.
	b.send(`{"type":"COMMIT"}`)
	b.expectError(engine.CodeTransaction)
}

func TestTransactionErrors(t *testing.T) {
	db := openDB(t)
	_, addr := startTCP(t, Config{}, db)
	a, b := dial(t, addr), dial(t, addr)
	a.send(`{"type":"COMMIT"}`)
	a.expectError(engine.CodeTransaction)
	a.send(`{"type":"ROLLBACK"}`)
	a.expectError(engine.CodeTransaction)
	a.send(`{"type":"BEGIN","isolation_level":"CHAOS"}`)
	a.expectError("22023")
	a.send(`{"type":"BEGIN","timeout_ms":7200000}`)
	a.expectError("22023")
	a.send(`{"type":"BEGIN"}`)
	id := a.expect("SUCCESS")["transaction_id"].(string)
	a.send(`{"type":"BEGIN"}`)
	a.expectError(engine.CodeTransaction)
	// Another session cannot use or end a's transaction.
	if r := b.run(`RETURN 1 AS x`, map[string]any{"transaction_id": id}); r.err == nil || r.err["code"] != engine.CodeNotFound {
		t.Errorf("foreign transaction_id: %v", r.err)
	}
	b.sendMsg(map[string]any{"type": "COMMIT", "transaction_id": id})
	b.expectError(engine.CodeNotFound)
	// A failed statement aborts the transaction; COMMIT then rolls back.
	a.ok(`CREATE (:U)`)
	if r := a.run(`RETURN 1/0 AS x`, nil); r.err == nil {
		t.Fatal("1/0 succeeded")
	}
	a.send(`{"type":"COMMIT"}`)
	a.expectError(engine.CodeTransaction)
	if n := num(t, b.ok(`MATCH (n:U) RETURN count(n) AS c`).rows[0]["c"]); n != 0 {
		t.Errorf("%d nodes of an aborted transaction", n)
	}

	// An expired transaction fails the next statement once, which does
	// not run on its own instead.
	a.send(`{"type":"BEGIN","timeout_ms":50}`)
	a.expect("SUCCESS")
	deadline := time.Now().Add(10 * time.Second)
	for db.OpenTransactions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the transaction did not expire")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r := a.run(`CREATE (:W)`, nil); r.err == nil || r.err["code"] != engine.CodeNotFound {
		t.Errorf("statement in an expired transaction: %v", r.err)
	}
	if n := num(t, a.ok(`MATCH (n:W) RETURN count(n) AS c`).rows[0]["c"]); n != 0 {
		t.Errorf("the statement of an expired transaction ran: %d nodes", n)
	}
}

// Closing the connection rolls its transaction back and cancels its
// running query.
func TestCloseRollsBack(t *testing.T) {
	db := openDB(t)
	_, addr := startTCP(t, Config{}, db)
	a := dial(t, addr)
	a.send(`{"type":"BEGIN"}`)
	a.expect("SUCCESS")
	a.ok(`CREATE (:V)`)
	if db.OpenTransactions() != 1 {
		t.Fatalf("%d open transactions", db.OpenTransactions())
	}
	a.c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for db.OpenTransactions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the closed session's transaction is still open")
		}
		time.Sleep(5 * time.Millisecond)
	}
	b := dial(t, addr)
	if n := num(t, b.ok(`MATCH (n:V) RETURN count(n) AS c`).rows[0]["c"]); n != 0 {
		t.Errorf("%d nodes of a rolled-back transaction", n)
	}
}
