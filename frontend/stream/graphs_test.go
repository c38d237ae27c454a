package stream

import "testing"

// A subscription with "graph" follows that graph's changes only; an
// unknown graph is refused with 42S02.
func TestStreamGraph(t *testing.T) {
	ts := newTestStream(t, Config{})
	ts.query("CREATE GRAPH g")
	c := ts.authed()
	c.send(`{"type":"SUBSCRIBE","id":"on-g","patterns":["(:P)"],"graph":"g"}`)
	c.expect("SUBSCRIBED")
	c.send(`{"type":"SUBSCRIBE","id":"default","patterns":["(:P)"]}`)
	c.expect("SUBSCRIBED")
	ts.query("USE g CREATE (:P {on: 'g'})")
	ch := c.expect("CHANGE")["data"].(map[string]any)
	if ch["subscription_id"] != "on-g" || ch["after"].(map[string]any)["on"] != "g" {
		t.Fatalf("a change on g: %v", ch)
	}
	ts.query("CREATE (:P {on: 'default'})")
	ch = c.expect("CHANGE")["data"].(map[string]any)
	if ch["subscription_id"] != "default" || ch["after"].(map[string]any)["on"] != "default" {
		t.Fatalf("a change on the default graph: %v", ch)
	}
	c.send(`{"type":"SUBSCRIBE","patterns":["(:P)"],"graph":"nope"}`)
	c.expect("ERROR", "42S02")
	c.send(`{"type":"PING"}`)
	c.expect("PONG") // nothing else arrived: no change crossed graphs
}
