package http

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// A client that closes its connection stops its query: within about the
// watch interval, long before the query's own deadline.
func TestClientGoneCancelsQuery(t *testing.T) {
	h := startHostile(t, Config{}, engine.Options{MaxMemory: -1})
	conn, err := net.Dial("tcp", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	body := queryBody("UNWIND range(1, 60000000) AS x UNWIND range(1, 60000000) AS y RETURN count(*)", 60000)
	req := fmt.Sprintf("POST /api/v1/query HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", h.addr, len(body), body)
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	// Wait until the query runs, then go away.
	deadline := time.Now().Add(10 * time.Second)
	for h.srv.Running() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the query never started")
		}
		runtime.Gosched()
	}
	closed := time.Now()
	conn.Close()
	select {
	case q := <-h.ended:
		if !q.ClientGone {
			t.Errorf("the query ended without noticing the client left: %+v", q)
		}
		// The request has a timeout, so the query's context is the
		// timeout's child: the client's leaving must still be its cause.
		if !errors.Is(q.Err, errClientGone) {
			t.Errorf("the query's error does not say the client left: %v", q.Err)
		}
		if after := time.Since(closed); after > 500*time.Millisecond {
			t.Errorf("the query stopped %v after its client left", after)
		} else {
			t.Logf("the query stopped %v after its client left", after)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the query did not stop after its client left")
	}
	h.healthy(t, "a client left")
}
