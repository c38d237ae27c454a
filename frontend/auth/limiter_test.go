package auth

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// The lockout of issue 27: wrong passwords for the admin from several
// addresses lock those addresses out, not the admin. The right password
// from an address that has not failed logs in, by every scheme; the
// failing addresses wait, without a hash; the trail shows who was
// attacked, from where, and which lock refused.
func TestLimiterLockoutFromOtherAddresses(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	attackers := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}
	for _, a := range attackers {
		for i := range 2 * pairFree {
			_, _, err := f.s.Login(ctx, "admin", "wrong-password", a+":4000")
			if i < pairFree {
				wantCode(t, err, engine.CodeAuth)
			} else {
				wantLimit(t, err)
			}
		}
	}
	if _, _, err := f.s.Login(ctx, "admin", "admin-password", "127.0.0.9:4000"); err != nil {
		t.Fatalf("the right password from an address that never failed: %v", err)
	}
	if _, err := f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "127.0.0.10:1"}); err != nil {
		t.Fatalf("Basic from an address that never failed: %v", err)
	}
	if _, err := f.s.Authenticate(ctx, Credentials{Username: "admin", Password: "admin-password", Address: "127.0.0.11:1", Protocol: "wire"}); err != nil {
		t.Fatalf("HELLO from an address that never failed: %v", err)
	}
	// A failing address waits, even with the right password, and the
	// refusal costs no hash.
	n := f.s.hash.hashes.Load()
	le := wantLimit(t, loginErr(f, "admin", "admin-password", "127.0.0.2:5000"))
	if le.RetryAfter > backoffBase || !strings.Contains(le.Message, "for this user name from this address") {
		t.Errorf("the attacker's refusal: %+v", le)
	}
	if f.s.hash.hashes.Load() != n {
		t.Error("a refused attempt ran a hash")
	}
	// The trail: each failure, each lock with its count and address,
	// each refusal with the lock that refused it.
	if got := len(f.events("login")); got < len(attackers)*pairFree {
		t.Errorf("%d login events, want a failure per wrong password", got)
	}
	locks := f.events("lockout")
	if len(locks) != len(attackers) {
		t.Fatalf("lockout events: %+v", locks)
	}
	for i, e := range locks {
		want := fmt.Sprintf("user admin from %s: %d failed attempts", attackers[i], pairFree)
		if e.Outcome != engine.OutcomeDenied || e.Address != attackers[i]+":4000" || !strings.HasPrefix(e.Detail, want) {
			t.Errorf("lockout event %d: %+v, want %q", i, e, want)
		}
	}
	refused := f.events("rate_limited")
	if len(refused) != len(attackers)*pairFree+1 {
		t.Fatalf("%d rate_limited events", len(refused))
	}
	if e := refused[0]; e.Address != "127.0.0.2:4000" || e.Detail != "user admin (login): locked for this user name from this address" {
		t.Errorf("rate_limited event %+v", e)
	}
}

func loginErr(f *fixture, user, pw, addr string) error {
	_, _, err := f.s.Login(context.Background(), user, pw, addr)
	return err
}

// Past the free failures each failure doubles the lock, up to the cap.
// A refused attempt neither counts nor renews the lock, a success
// forgets the pair's failures, and so does an hour of quiet.
func TestLimiterBackoff(t *testing.T) {
	f := newFixture(t, "")
	const addr = "192.0.2.7:1"
	for range pairFree - 1 {
		wantCode(t, loginErr(f, "admin", "x", addr), engine.CodeAuth)
	}
	want := backoffBase
	for i := 0; want <= 2*backoffCap; i++ {
		wantCode(t, loginErr(f, "admin", "x", addr), engine.CodeAuth) // the failure that locks
		// Refused attempts while locked: the wait only shrinks.
		for j := range 3 {
			le := wantLimit(t, loginErr(f, "admin", "admin-password", addr))
			if le.RetryAfter != min(want, backoffCap)-time.Duration(j)*time.Millisecond {
				t.Fatalf("failure %d, refusal %d: retry after %v, want %v", pairFree+i, j, le.RetryAfter, min(want, backoffCap))
			}
			f.clk.Add(time.Millisecond)
		}
		f.clk.Add(min(want, backoffCap) - 3*time.Millisecond)
		want *= 2
	}
	if locks := f.events("lockout"); len(locks) == 0 || !strings.HasSuffix(locks[len(locks)-1].Detail, "for "+backoffCap.String()) {
		t.Errorf("the last lockout event does not show the cap: %+v", locks[len(locks)-1])
	}
	// A success resets the pair: pairFree more failures before a lock.
	f.login("admin", "admin-password") // from another address: the pair stays
	wantCode(t, loginErr(f, "admin", "x", addr), engine.CodeAuth)
	wantLimit(t, loginErr(f, "admin", "admin-password", addr))
	f.clk.Add(backoffCap)
	if err := loginErr(f, "admin", "admin-password", addr); err != nil {
		t.Fatal(err)
	}
	for range pairFree - 1 {
		wantCode(t, loginErr(f, "admin", "x", addr), engine.CodeAuth)
	}
	if err := loginErr(f, "admin", "admin-password", addr); err != nil {
		t.Fatalf("after a success, %d failures lock: %v", pairFree-1, err)
	}
	// Quiet for forgetAfter after the lock: the count starts over.
	for range pairFree {
		wantCode(t, loginErr(f, "admin", "x", addr), engine.CodeAuth)
	}
	f.clk.Add(backoffBase + forgetAfter)
	for range pairFree - 1 {
		wantCode(t, loginErr(f, "admin", "x", addr), engine.CodeAuth)
	}
	if err := loginErr(f, "admin", "admin-password", addr); err != nil {
		t.Fatalf("failures older than %s still count: %v", forgetAfter, err)
	}
}

// One address trying many user names is locked whatever the name, with
// the same backoff; other addresses are not.
func TestLimiterPerAddress(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	for i := range addrFree {
		// Distinct (unknown) users, one address with changing ports.
		_, err := f.s.Authenticate(ctx, Credentials{Authorization: basic(fmt.Sprintf("u%d", i), "password-x"), Address: fmt.Sprintf("192.0.2.1:%d", 1000+i)})
		wantCode(t, err, engine.CodeAuth)
	}
	_, err := f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "192.0.2.1:9"})
	if le := wantLimit(t, err); le.RetryAfter != backoffBase || !strings.Contains(le.Message, "from this address") {
		t.Errorf("refusal %+v", le)
	}
	if _, err := f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "192.0.2.2:9"}); err != nil {
		t.Fatalf("another address is limited: %v", err)
	}
	locks := f.events("lockout")
	if len(locks) != 1 || locks[0].Detail != fmt.Sprintf("address 192.0.2.1: %d failed attempts over all user names and API keys, locked for 1s", addrFree) {
		t.Errorf("lockout events %+v", locks)
	}
	f.clk.Add(backoffBase)
	if _, err := f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "192.0.2.1:9"}); err != nil {
		t.Fatalf("after the lock: %v", err)
	}
}

// Many addresses, each under the pair's limit, share out the guessing:
// at userFree failures the user name is locked from every address,
// except those it logged in from.
func TestLimiterPerUserFromAllAddresses(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	f.login("admin", "admin-password") // from 127.0.0.1: a known address
	per := pairFree - 1
	for i := range userFree / per {
		for range per {
			wantCode(t, loginErr(f, "admin", "x", fmt.Sprintf("10.0.%d.%d:1", i/250, i%250)), engine.CodeAuth)
		}
	}
	le := wantLimit(t, loginErr(f, "admin", "admin-password", "10.9.9.9:1"))
	if le.RetryAfter != backoffBase || !strings.Contains(le.Message, "for this user name;") {
		t.Errorf("refusal %+v", le)
	}
	if _, err := f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "127.0.0.1:7"}); err != nil {
		t.Fatalf("the address the admin logged in from: %v", err)
	}
	locks := f.events("lockout")
	want := fmt.Sprintf("user admin: %d failed attempts from all addresses, locked for 1s except from the 1 address it logged in from", userFree)
	if len(locks) != 1 || locks[0].Detail != want {
		t.Errorf("lockout events %+v, want %q", locks, want)
	}
	f.clk.Add(backoffBase)
	if err := loginErr(f, "admin", "admin-password", "10.9.9.9:1"); err != nil {
		t.Fatalf("after the lock: %v", err)
	}
}

func TestLimiterAPIKeyFailures(t *testing.T) {
	f := newFixture(t, "")
	key := f.mustCall(f.admin(), "CALL dbms.security.createApiKey('admin', 'x')")[0][1].(string)
	ctx := context.Background()
	for range addrFree {
		_, err := f.s.Authenticate(ctx, Credentials{APIKey: key + "x", Address: "198.51.100.7:1"})
		wantCode(t, err, engine.CodeAuth)
	}
	_, err := f.s.Authenticate(ctx, Credentials{APIKey: key, Address: "198.51.100.7:2"})
	wantLimit(t, err)
	if _, err := f.s.Authenticate(ctx, Credentials{APIKey: key, Address: "198.51.100.8:2"}); err != nil {
		t.Fatal(err)
	}
	if ev := f.events("rate_limited"); len(ev) != 1 || ev[0].Detail != "api_key: locked from this address" {
		t.Errorf("rate_limited events %+v", ev)
	}
}

// A client's ports change and an IPv6 host is usually given a /64: both
// count as one address.
func TestClientHost(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.2:4000":                "127.0.0.2",
		"127.0.0.2":                     "127.0.0.2",
		"[::ffff:10.1.2.3]:9":           "10.1.2.3",
		"[2001:db8:1:2:3:4:5:6]:443":    "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1%eth0]:1": "2001:db8:1:2::/64",
		"[::1]:80":                      "::/64",
		"not an address":                "not an address",
		"":                              "",
	} {
		if got := clientHost(in); got != want {
			t.Errorf("clientHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// A flood of distinct names from distinct addresses cannot grow the
// limiter past maxTracked, and the locks in place survive it: the
// unlocked counts go first.
func TestLimiterMemoryBounded(t *testing.T) {
	l := newLimiter()
	now := time.Unix(0, 0)
	for range pairFree {
		l.fail(now, "admin", "127.0.0.2")
	}
	for i := range maxTracked {
		l.fail(now, fmt.Sprint("user", i), fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
	}
	if n := len(l.mu.entries); n > maxTracked {
		t.Fatalf("%d entries", n)
	}
	if l.check(now, "admin", "127.0.0.2") == nil {
		t.Fatal("the flood unlocked the attacked pair")
	}
	for i := range 2 * knownPerUser {
		l.succeed(now.Add(time.Duration(i)), "admin", fmt.Sprint("10.0.0.", i))
	}
	if n := len(l.mu.known["admin"]); n != knownPerUser {
		t.Fatalf("%d known addresses, want %d", n, knownPerUser)
	}
	if _, ok := l.mu.known["admin"][fmt.Sprint("10.0.0.", 2*knownPerUser-1)]; !ok {
		t.Fatal("the latest known address was dropped")
	}
	c := newBasicCache()
	for i := range cacheEntries + 10 {
		c.add(now, fmt.Sprint(i), "pw", 1)
	}
	if len(c.entries) > cacheEntries {
		t.Fatalf("%d cache entries", len(c.entries))
	}
}
