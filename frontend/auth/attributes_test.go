package auth

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// User attributes are kept with the user, carried by its principal, read
// by row-level security predicates as $user, and survive a restart; a
// change takes effect on the next statement.
func TestUserAttributes(t *testing.T) {
	f := newFixture(t, t.TempDir())
	admin := f.admin()
	f.user("ann", "ann-password", "reader")
	f.mustCall(admin, "CALL dbms.security.setUserAttribute('ann', 'region', 'eu')")
	f.mustCall(admin, "CALL dbms.security.setUserAttribute('ann', 'level', 3)")
	f.mustCall(admin, "CALL dbms.security.setUserAttribute('ann', 'teams', ['a', 'b'])")
	f.mustCall(admin, "CALL dbms.security.setUserAttribute('ann', 'gone', true)")
	f.mustCall(admin, "CALL dbms.security.setUserAttribute('ann', 'gone', null)")
	want := "[[level 3] [region eu] [teams [a b]]]"
	if rows := f.mustCall(admin, "CALL dbms.security.userAttributes('ann')"); fmt.Sprint(rows) != want {
		t.Fatalf("userAttributes: %v", rows)
	}
	if ev := f.events("set_user_attribute"); len(ev) != 5 || ev[0].Detail != "setUserAttribute username ann key region" {
		t.Fatalf("audit: %+v", ev)
	}
	for _, q := range []string{
		"CALL dbms.security.setUserAttribute('ann', 'name', 'x')",
		"CALL dbms.security.setUserAttribute('ann', '1x', 'x')",
		"CALL dbms.security.setUserAttribute('ann', 'm', {a: 1})",
		"CALL dbms.security.setUserAttribute('ann', 'm', [[1]])",
	} {
		_, err := f.call(admin, q)
		wantCode(t, err, "22023")
	}
	_, err := f.call(admin, "CALL dbms.security.setUserAttribute('nobody', 'k', 1)")
	wantCode(t, err, "42S02")

	f.mustCall(nil, `CREATE (:P {name: 'a', region: 'eu', level: 2}), (:P {name: 'b', region: 'us', level: 2}), (:P {name: 'c', region: 'eu', level: 5})`)
	f.mustCall(admin, `CALL quiver.rls.createPolicy('mine', {label: 'P', roles: ['reader'], predicate: 'n.region = $user.region AND n.level <= $user.level AND "a" IN $user.teams'})`)
	names := func() []string {
		ann, err := f.s.Authenticate(context.Background(), Credentials{Username: "ann", Password: "ann-password"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range f.mustCall(ann, "MATCH (n:P) RETURN n.name") {
			out = append(out, r[0].(string))
		}
		slices.Sort(out)
		return out
	}
	if got := names(); fmt.Sprint(got) != "[a]" {
		t.Fatalf("ann reads %v", got)
	}
	f.mustCall(admin, "CALL dbms.security.setUserAttribute('ann', 'level', 9)")
	if got := names(); fmt.Sprint(got) != "[a c]" {
		t.Fatalf("after the change ann reads %v", got)
	}
	f.reopen()
	if got := names(); fmt.Sprint(got) != "[a c]" {
		t.Fatalf("after a restart ann reads %v", got)
	}
	if rows := f.mustCall(f.admin(), "CALL dbms.security.userAttributes('ann')"); fmt.Sprint(rows) != "[[level 9] [region eu] [teams [a b]]]" {
		t.Fatalf("userAttributes after a restart: %v", rows)
	}
}
