package auth

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

func TestSecurityProcedures(t *testing.T) {
	f := newFixture(t, "")
	admin := f.admin()
	rows := f.mustCall(admin, "CALL dbms.security.createUser('gus', 'gus-password', ['reader', 'editor', 'reader'])")
	if fmt.Sprint(rows) != "[[gus [editor reader]]]" {
		t.Fatalf("createUser: %v", rows)
	}
	rows = f.mustCall(admin, "CALL dbms.security.listUsers()")
	if len(rows) != 2 || rows[0][0] != "admin" || rows[1][0] != "gus" || !strings.HasPrefix(rows[1][2].(string), "2026-01-02T03:04:05") {
		t.Fatalf("listUsers: %v", rows)
	}
	rows = f.mustCall(admin, "CALL dbms.security.listRoles()")
	if fmt.Sprint(rows) != "[[admin [read write admin]] [editor [read write]] [reader [read]]]" {
		t.Fatalf("listRoles: %v", rows)
	}
	gus, err := f.s.Authenticate(context.Background(), Credentials{Username: "gus", Password: "gus-password"})
	if err != nil {
		t.Fatal(err)
	}
	if rows := f.mustCall(gus, "CALL dbms.security.currentUser()"); fmt.Sprint(rows) != "[[gus [editor reader]]]" {
		t.Fatalf("currentUser: %v", rows)
	}

	refused := []struct {
		who  *engine.Principal
		q    string
		code string
	}{
		{gus, "CALL dbms.security.createUser('x', 'xxxxxxxx', ['reader'])", engine.CodePermission},
		{gus, "CALL dbms.security.listUsers()", engine.CodePermission},
		{admin, "CALL dbms.security.createUser('gus', 'gus-password', ['reader'])", "42S01"},
		{admin, "CALL dbms.security.createUser('h', 'hhhhhhhh', ['super user'])", "22023"},
		{admin, "CALL dbms.security.createUser('h', 'hhhhhhhh', [])", "22023"},
		{admin, "CALL dbms.security.createUser('h', 'hhhhhhhh', [1])", "22023"},
		{admin, "CALL dbms.security.createUser('h', 'short', ['reader'])", "22023"},
		{admin, "CALL dbms.security.createUser('bad name', 'hhhhhhhh', ['reader'])", "22023"},
		{admin, "CALL dbms.security.createUser('" + strings.Repeat("n", 65) + "', 'hhhhhhhh', ['reader'])", "22023"},
		{admin, "CALL dbms.security.createUser(null, 'hhhhhhhh', ['reader'])", "22023"},
		{admin, "CALL dbms.security.dropUser('nobody')", "42S02"},
		{admin, "CALL dbms.security.dropUser('admin')", "22023"},
		{admin, "CALL dbms.security.removeRole('admin', 'admin')", "22023"},
		{admin, "CALL dbms.security.addRole('gus', 'root!')", "22023"},
		{admin, "CALL dbms.security.revokeApiKey('nope')", "42S02"},
		{admin, "CALL dbms.security.createApiKey('nobody', 'k')", "42S02"},
		{admin, "CALL dbms.security.setPassword('gus', '" + strings.Repeat("p", 1025) + "')", "22023"},
	}
	for _, c := range refused {
		_, err := f.call(c.who, c.q)
		wantCode(t, err, c.code)
	}

	// A second admin may be dropped, and then the first is the last again.
	f.mustCall(admin, "CALL dbms.security.addRole('gus', 'admin')")
	f.mustCall(admin, "CALL dbms.security.removeRole('gus', 'admin')")
	f.mustCall(admin, "CALL dbms.security.dropUser('gus')")
	if rows := f.mustCall(admin, "CALL dbms.security.listUsers()"); len(rows) != 1 {
		t.Fatalf("after dropUser: %v", rows)
	}

	// user_management events: successes and failures, by the admin (the
	// passwords are checked absent from every event below).
	ev := f.events("create_user")
	var ok, failed int
	for _, e := range ev {
		switch {
		case e.Outcome == engine.OutcomeSuccess && e.Principal == "admin":
			ok++
		case e.Outcome == engine.OutcomeFailure:
			failed++
		}
	}
	if ok != 1 || failed < 7 {
		t.Fatalf("create_user events: %d ok, %d failed: %+v", ok, failed, ev)
	}
	for _, a := range []string{"drop_user", "add_role", "remove_role"} {
		if len(f.events(a)) == 0 {
			t.Fatalf("no %s event", a)
		}
	}
	for _, r := range f.audit.Recent(MaxRecent) {
		for _, secret := range []string{"gus-password", "hhhhhhhh", "admin-password", "xxxxxxxx"} {
			if strings.Contains(r.Detail, secret) {
				t.Fatalf("event holds a password: %+v", r)
			}
		}
	}
}

func TestProceduresRefuseExplicitTransactions(t *testing.T) {
	f := newFixture(t, "")
	tx, err := f.db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	ctx := engine.WithPrincipal(context.Background(), f.admin())
	res, err := tx.Query(ctx, "CALL dbms.security.createUser('ivy', 'ivy-password', ['reader'])", nil)
	if err == nil {
		for {
			b, nerr := res.Next()
			if nerr != nil || b == nil {
				err = nerr
				break
			}
		}
		res.Close()
	}
	if e := wantCode(t, err, engine.CodeTransaction); !strings.Contains(e.Message, "outside a transaction") {
		t.Fatalf("message %q", e.Message)
	}
	if f.s.user("ivy") != nil {
		t.Fatal("the user was created inside a transaction")
	}
}

func TestProceduresWithAuthOff(t *testing.T) {
	f := newFixture(t, "", func(c *Config) { c.Enabled = false })
	f.mustCall(nil, "CALL dbms.security.createUser('jon', 'jon-password', ['admin'])")
	if rows := f.mustCall(nil, "CALL dbms.security.currentUser()"); fmt.Sprint(rows) != "[[<nil> []]]" {
		t.Fatalf("currentUser without a principal: %v", rows)
	}
	_, err := f.call(nil, "CALL dbms.security.changePassword('jon-password', 'jon-password-2')")
	wantCode(t, err, "22023")
	// Users prepared with authentication off work once it is on.
	p, err := f.s.Authenticate(context.Background(), Credentials{Username: "jon", Password: "jon-password"})
	if p != nil || err != nil {
		t.Fatal("authentication off answers (nil, nil)")
	}
	on := f.s
	on.cfg.Enabled = true
	if p, err := on.Authenticate(context.Background(), Credentials{Username: "jon", Password: "jon-password"}); err != nil || p.Name != "jon" {
		t.Fatalf("%+v %v", p, err)
	}
}
