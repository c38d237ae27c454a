package stream

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
)

// A client that stops reading never holds the writers back: they commit
// at full speed while its queue fills; it is then sent LAGGING and closed
// (1013) once it reads again, and a client that never reads is
// disconnected after WriteTimeout.
func TestStreamSlowConsumer(t *testing.T) {
	ts := newTestStream(t, Config{QueueMessages: 64, WriteTimeout: time.Minute})
	lazy := ts.authed()
	lazy.send(`{"type":"SUBSCRIBE","patterns":["(n)"]}`)
	lazy.expect("SUBSCRIBED")
	patient := ts.srv

	deaf := ts.serve(Config{QueueMessages: 64, WriteTimeout: 300 * time.Millisecond})
	mute := ts.authed()
	mute.send(`{"type":"SUBSCRIBE","patterns":["(n)"]}`)
	mute.expect("SUBSCRIBED")

	// ~40 MB of CHANGE messages: more than the socket buffers hold.
	start := time.Now()
	pad := strings.Repeat("x", 2000)
	for i := 0; i < 400; i++ {
		res, err := ts.db.Query(t.Context(), "UNWIND range(1, 50) AS i CREATE (:N {i: i, pad: $pad})", map[string]any{"pad": pad})
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
	}
	t.Logf("400 commits of 50 nodes in %v with two stalled clients", time.Since(start))
	waitFor(t, "the stalled clients to lag", func() bool { return patient.Stats().Lagged == 1 && deaf.Stats().Lagged == 1 })
	waitFor(t, "the client that never reads to be disconnected", func() bool { return deaf.Stats().Connections == 0 })

	var last string
	changes := 0
	_ = lazy.ws.SetReadDeadline(time.Now().Add(time.Minute))
	for {
		_, data, err := lazy.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != websocket.CloseTryAgainLater {
				t.Fatalf("after %d changes: %v, want close 1013", changes, err)
			}
			break
		}
		if strings.HasPrefix(string(data), `{"type":"CHANGE"`) {
			changes++
			continue
		}
		last = string(data)
	}
	if !strings.Contains(last, `"type":"LAGGING"`) || !strings.Contains(last, "reads too slowly") {
		t.Fatalf("last message %s, want LAGGING", last)
	}
	if changes >= 400*50 {
		t.Fatalf("the lagging client got all %d changes", changes)
	}
	t.Logf("the lagging client read %d changes, then LAGGING", changes)
}
