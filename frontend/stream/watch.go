package stream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
)

// Watcher is a minimal stream client that counts the CHANGE messages it
// receives: the benchmark's subscriber (and a test helper). Real clients
// would decode the data; see docs/stream.md.
type Watcher struct {
	ws      *websocket.Conn
	changes atomic.Uint64
	done    chan struct{}
	closing atomic.Bool
	mu      sync.Mutex
	err     error // why the stream ended, unless Close ended it
}

// Watch connects to url (ws://host:port/api/v1/stream), sends AUTH with
// token ("" while authentication is off), subscribes to patterns and
// counts changes until Close. It returns once SUBSCRIBED arrived.
func Watch(ctx context.Context, url, token string, patterns []string) (*Watcher, error) {
	ws, _, err := websocket.DefaultDialer.DialContext(ctx, url, nil)
	if err != nil {
		return nil, fmt.Errorf("cannot connect to the change stream: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = ws.SetReadDeadline(dl)
	}
	auth := map[string]any{"type": msgAuth}
	if token != "" {
		auth["token"] = "Bearer " + token
	}
	for _, step := range []struct {
		msg  map[string]any
		want string
	}{
		{auth, msgAuthOK},
		{map[string]any{"type": msgSubscribe, "patterns": patterns}, msgSubscribed},
	} {
		if err := ws.WriteJSON(step.msg); err != nil {
			ws.Close()
			return nil, fmt.Errorf("cannot send %v: %w", step.msg["type"], err)
		}
		var reply struct{ Type, Code, Message string }
		if err := ws.ReadJSON(&reply); err != nil {
			ws.Close()
			return nil, fmt.Errorf("no reply to %v: %w", step.msg["type"], err)
		}
		if reply.Type != step.want {
			ws.Close()
			return nil, fmt.Errorf("%v: got %s %s %s", step.msg["type"], reply.Type, reply.Code, reply.Message)
		}
	}
	_ = ws.SetReadDeadline(time.Time{})
	w := &Watcher{ws: ws, done: make(chan struct{})}
	go w.read()
	return w, nil
}

func (w *Watcher) read() {
	defer close(w.done)
	var head struct{ Type, Message string }
	for {
		_, msg, err := w.ws.ReadMessage()
		if err != nil {
			if !w.closing.Load() {
				w.setErr(err)
			}
			return
		}
		if isChange(msg) {
			w.changes.Add(1)
			continue
		}
		if json.Unmarshal(msg, &head) == nil && (head.Type == msgLagging || head.Type == msgError) {
			w.setErr(fmt.Errorf("stream: %s: %s", head.Type, head.Message))
		}
	}
}

func (w *Watcher) setErr(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

// Changes is the number of CHANGE messages received so far.
func (w *Watcher) Changes() uint64 { return w.changes.Load() }

// Done is closed when the stream ended.
func (w *Watcher) Done() <-chan struct{} { return w.done }

// Err is why the stream ended or went wrong (LAGGING, ERROR, a broken
// connection); nil while it runs well or when Close ended it.
func (w *Watcher) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Close ends the stream and returns Err.
func (w *Watcher) Close() error {
	w.closing.Store(true)
	_ = w.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	_ = w.ws.Close()
	<-w.done
	err := w.Err()
	if errors.Is(err, websocket.ErrCloseSent) {
		return nil
	}
	return err
}
