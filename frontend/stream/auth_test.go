package stream

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/fasthttp/websocket"

	"github.com/quiverdb/quiver/engine"
)

// fakeAuth is a credential store for the stream's auth hooks: tokens
// name users, whose privileges the test changes or revokes.
type fakeAuth struct {
	mu     sync.Mutex
	users  map[string]engine.Privilege // by token
	audits []engine.AuditEvent
}

func (f *fakeAuth) authenticate(authorization, addr string) (*engine.Principal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	token, _ := strings.CutPrefix(authorization, "Bearer ")
	priv, ok := f.users[token]
	if !ok || addr == "" {
		return nil, engine.NewError(engine.CodeAuth, engine.CatAuth, "the access token is not valid")
	}
	// The token names the user and its one role.
	return &engine.Principal{Name: token, Roles: []string{token}, Privileges: priv, Method: "bearer", Address: addr}, nil
}

func (f *fakeAuth) current(p *engine.Principal) (*engine.Principal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	priv, ok := f.users[p.Name]
	if !ok {
		return nil, engine.NewError(engine.CodeAuth, engine.CatAuth, "the user %s no longer exists", p.Name)
	}
	q := *p
	q.Privileges = priv
	return &q, nil
}

func (f *fakeAuth) set(token string, priv engine.Privilege, ok bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ok {
		f.users[token] = priv
	} else {
		delete(f.users, token)
	}
}

func (f *fakeAuth) Audit(e engine.AuditEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.audits = append(f.audits, e)
}

// With authentication on: AUTH takes Bearer only; each SUBSCRIBE
// re-reads the principal: no read privilege is 42501 (audited, the
// connection stays), a revoked user closes the connection with 08001.
func TestStreamPrivileges(t *testing.T) {
	fa := &fakeAuth{users: map[string]engine.Privilege{"reader": engine.PrivRead, "none": 0}}
	ts := newTestStream(t, Config{Authenticate: fa.authenticate, Current: fa.current, Auditor: fa})

	for _, token := range []string{"ApiKey reader", "Basic cmVhZGVyOng=", "Bearer unknown", "reader"} {
		c := ts.dial()
		c.send(`{"type":"AUTH","token":"` + token + `"}`)
		m := c.expect("ERROR", "08001")
		if token == "ApiKey reader" && !strings.Contains(m["message"].(string), "Bearer") {
			t.Errorf("%s: %v", token, m)
		}
		if code := c.expectClose(); code != websocket.ClosePolicyViolation {
			t.Errorf("%s: close code %d", token, code)
		}
	}

	none := ts.dial()
	none.send(`{"type":"AUTH","token":"Bearer none"}`)
	none.expect("AUTH_OK")
	none.send(`{"type":"SUBSCRIBE","id":"a","patterns":["(n)"]}`)
	if m := none.expect("ERROR", "42501"); m["subscription_id"] != "a" {
		t.Errorf("42501 without the subscription id: %v", m)
	}
	none.send(`{"type":"PING"}`)
	none.expect("PONG")
	fa.mu.Lock()
	// The three AUTHs without a bearer token never reach the Service (the
	// fake audits nothing itself): the stream audits them, then the denial.
	if len(fa.audits) != 4 {
		t.Fatalf("audit %+v", fa.audits)
	}
	for _, a := range fa.audits[:3] {
		if a.Category != "authentication" || a.Action != "authenticate" || a.Outcome != engine.OutcomeFailure || a.Address == "" {
			t.Errorf("refused AUTH audited as %+v", a)
		}
	}
	if d := fa.audits[3]; d.Outcome != engine.OutcomeDenied || d.Principal != "none" || d.Address == "" {
		t.Errorf("audit %+v", fa.audits)
	}
	fa.mu.Unlock()
	// Granted reading, the same connection may subscribe.
	fa.set("none", engine.PrivRead, true)
	none.send(`{"type":"SUBSCRIBE","id":"a","patterns":["(n)"]}`)
	none.expect("SUBSCRIBED")

	c := ts.dial()
	c.send(`{"type":"AUTH","token":"Bearer reader"}`)
	c.expect("AUTH_OK")
	c.send(`{"type":"SUBSCRIBE","id":"p","patterns":["(:P)"]}`)
	c.expect("SUBSCRIBED")
	ts.query("CREATE (:P)")
	c.expect("CHANGE")
	fa.set("reader", 0, false)
	c.send(`{"type":"SUBSCRIBE","id":"q","patterns":["(:Q)"]}`)
	if m := c.expect("ERROR", "08001"); !strings.Contains(m["message"].(string), "no longer exists") {
		t.Errorf("revoked: %v", m)
	}
	if code := c.expectClose(); code != websocket.ClosePolicyViolation {
		t.Errorf("revoked: close code %d", code)
	}
}

// An Authenticate that answers neither a principal nor an error is a
// refusal, not a connection without one.
func TestStreamAuthNilPrincipal(t *testing.T) {
	ts := newTestStream(t, Config{Authenticate: func(string, string) (*engine.Principal, error) { return nil, nil }})
	c := ts.dial()
	c.send(`{"type":"AUTH","token":"Bearer x"}`)
	c.expect("ERROR", "08001")
	c.expectClose()
}

// Row-level security filters the stream: a principal a policy applies
// to receives the changes of the elements the policy admits, and a
// subscription running when the policy is created is filtered from then
// on; a principal the policy does not name receives every change.
func TestStreamRowSecurity(t *testing.T) {
	fa := &fakeAuth{users: map[string]engine.Privilege{"reader": engine.PrivRead, "editor": engine.PrivRead | engine.PrivWrite}}
	ts := newTestStream(t, Config{Authenticate: fa.authenticate, Current: fa.current, Auditor: fa})
	c := ts.dial()
	c.send(`{"type":"AUTH","token":"Bearer reader"}`)
	c.expect("AUTH_OK")
	c.send(`{"type":"SUBSCRIBE","id":"p","patterns":["(:P)"]}`)
	c.expect("SUBSCRIBED")
	ts.query(`CALL quiver.rls.createPolicy('p', {label: 'P', roles: ['reader'], predicate: 'n.v = 1'})`)
	ts.query("CREATE (:P {v: 2})")
	ts.query("CREATE (:P {v: 1})")
	if m := c.expect("CHANGE"); !strings.Contains(fmt.Sprint(m), "v:1") || strings.Contains(fmt.Sprint(m), "v:2") {
		t.Errorf("the reader's change: %v", m)
	}
	c.send(`{"type":"SUBSCRIBE","id":"q","patterns":["(:P)"]}`)
	c.expect("SUBSCRIBED")
	// The editor is not named by the policy: it sees both.
	e := ts.dial()
	e.send(`{"type":"AUTH","token":"Bearer editor"}`)
	e.expect("AUTH_OK")
	e.send(`{"type":"SUBSCRIBE","id":"e","patterns":["(:P)"]}`)
	e.expect("SUBSCRIBED")
	ts.query("CREATE (:P {v: 3})")
	ts.query("CREATE (:P {v: 1, w: 'x'})")
	if m := e.expect("CHANGE"); !strings.Contains(fmt.Sprint(m), "v:3") {
		t.Errorf("the editor's first change: %v", m)
	}
	e.expect("CHANGE")
	// The reader's two subscriptions get the visible node only.
	for range 2 {
		if m := c.expect("CHANGE"); !strings.Contains(fmt.Sprint(m), "w:x") {
			t.Errorf("the reader's change: %v", m)
		}
	}
}
