package stream

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// SUBSCRIBE with "from" delivers the commits after the position, then
// the live ones, while writers commit: every commit exactly once, in
// commit order, each CHANGE with its position.
func TestStreamResumeFrom(t *testing.T) {
	ts := newTestStreamWith(t, Config{}, engine.Options{CDCRetention: engine.CDCRetention{MaxAge: time.Hour}})
	_, start, _ := ts.db.ChangePositions()
	const before, total = 20, 120
	for i := range before {
		ts.query(fmt.Sprintf("CREATE (:P {i: %d})", i))
	}
	c := ts.authed()
	done := make(chan error, 1)
	go func() { // writers go on while the subscription starts
		for i := before; i < total; i++ {
			res, err := ts.db.Query(context.Background(), fmt.Sprintf("CREATE (:P {i: %d})", i), nil)
			if err != nil {
				done <- err
				return
			}
			res.Close()
		}
		done <- nil
	}()
	c.send(`{"type":"SUBSCRIBE","patterns":["(:P)"],"id":"r","from":"` + start.String() + `"}`)
	c.expect("SUBSCRIBED")
	last := ""
	for i := range total {
		m := c.expect("CHANGE")
		d := m["data"].(map[string]any)
		pos := d["position"].(string)
		if pos <= last {
			t.Fatalf("change %d: position %s after %s", i, pos, last)
		}
		last = pos
		if got := d["after"].(map[string]any)["i"].(json.Number).String(); got != fmt.Sprint(i) {
			t.Fatalf("change %d is of node i=%s", i, got)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Nothing more: a PING's PONG comes next.
	c.send(`{"type":"PING"}`)
	c.expect("PONG")

	// Resuming after the last position seen gives the next commit only.
	c2 := ts.authed()
	c2.send(`{"type":"SUBSCRIBE","patterns":["(:P)"],"from":"` + last + `"}`)
	c2.expect("SUBSCRIBED")
	ts.query("CREATE (:P {i: -1})")
	if d := c2.expect("CHANGE")["data"].(map[string]any); d["after"].(map[string]any)["i"].(json.Number).String() != "-1" {
		t.Fatalf("after resuming at the end: %v", d)
	}
	if d := c.expect("CHANGE")["data"].(map[string]any); d["position"].(string) <= last {
		t.Fatalf("the first subscription, live: %v", d)
	}

	// Bad positions are refused with the engine's codes.
	c.send(`{"type":"SUBSCRIBE","patterns":["(:P)"],"id":"bad","from":"x"}`)
	c.expect("ERROR", engine.CodeInvalidParam)
	c.send(`{"type":"SUBSCRIBE","patterns":["(:P)"],"id":"bad","from":"ffffffffffffffff0000"}`)
	c.expect("ERROR", engine.CodeInvalidParam)
	c.send(`{"type":"SUBSCRIBE","patterns":["(:P)"],"id":"bad","from":5}`)
	c.expect("ERROR", engine.CodeData)
}

// Under concurrent writers, the positions of the CHANGE messages a
// subscription receives are exactly those cdc.changes lists from the
// position before it, in the same order.
func TestStreamEventsMatchCDC(t *testing.T) {
	ts := newTestStreamWith(t, Config{}, engine.Options{CDCRetention: engine.CDCRetention{MaxAge: time.Hour}})
	c := ts.authed()
	_, start, _ := ts.db.ChangePositions()
	c.send(`{"type":"SUBSCRIBE","patterns":["(n)", "()-->()"],"id":"all"}`)
	c.expect("SUBSCRIBED")
	errc := make(chan error, 4)
	for w := range 4 {
		go func() {
			for i := range 25 {
				res, err := ts.db.Query(context.Background(), fmt.Sprintf("CREATE (:W {w: %d, i: %d})-[:R]->(:X)", w, i), nil)
				if err != nil {
					errc <- err
					return
				}
				res.Close()
			}
			errc <- nil
		}()
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	var streamed []string
	for range 4 * 25 * 3 {
		streamed = append(streamed, c.expect("CHANGE")["data"].(map[string]any)["position"].(string))
	}
	var listed []string
	from := start.String()
	for {
		res, err := ts.db.Query(context.Background(), "CALL cdc.changes($p, {limit: 64}) YIELD position RETURN position", engine.Params{"p": from})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			b, err := res.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				break
			}
			for i := 0; i < b.Rows(); i++ {
				from = b.Cols[0].Get(b.Row(i)).(string)
				listed = append(listed, from)
				n++
			}
		}
		res.Close()
		if n < 64 {
			break
		}
	}
	if fmt.Sprint(listed) != fmt.Sprint(streamed) {
		t.Fatalf("cdc.changes listed %d positions, the stream sent %d:\n%v\n%v", len(listed), len(streamed), listed, streamed)
	}
}
