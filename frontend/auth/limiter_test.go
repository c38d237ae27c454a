package auth

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

func TestLimiterPerUser(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	for i := range limitPerUser {
		_, _, err := f.s.Login(ctx, "admin", "wrong-password", fmt.Sprintf("10.0.0.%d:1", i))
		wantCode(t, err, engine.CodeAuth)
	}
	// The right password from a fresh address is refused now, without a
	// hash, and for every scheme that checks a password.
	n := f.s.hash.hashes.Load()
	_, _, err := f.s.Login(ctx, "admin", "admin-password", "10.1.1.1:1")
	le := wantLimit(t, err)
	if le.RetryAfter > limitWindow {
		t.Fatalf("RetryAfter %v", le.RetryAfter)
	}
	_, err = f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "10.1.1.2:1"})
	wantLimit(t, err)
	_, err = f.s.Authenticate(ctx, Credentials{Username: "admin", Password: "admin-password"})
	wantLimit(t, err)
	if f.s.hash.hashes.Load() != n {
		t.Fatal("a refused attempt ran a hash")
	}
	if len(f.events("rate_limited")) != 3 {
		t.Fatalf("rate_limited events: %+v", f.events("rate_limited"))
	}
	// Another user is not affected.
	f.s.limiter.succeed(userKey("admin")) // (only to create ann as the admin)
	f.user("ann", "ann-password", "reader")
	for range limitPerUser {
		_, _, _ = f.s.Login(ctx, "admin", "wrong-password", "10.2.0.1:1")
	}
	f.login("ann", "ann-password")

	f.clk.Add(limitWindow)
	f.login("admin", "admin-password")
	// A success resets the user's count: four more failures do not lock.
	for range limitPerUser - 1 {
		_, _, _ = f.s.Login(ctx, "admin", "wrong-password", "10.3.0.1:1")
	}
	f.login("admin", "admin-password")
}

func TestLimiterPerAddress(t *testing.T) {
	f := newFixture(t, "")
	ctx := context.Background()
	for i := range limitPerAddr {
		// Distinct (unknown) users, one address with changing ports.
		_, err := f.s.Authenticate(ctx, Credentials{Authorization: basic(fmt.Sprintf("u%d", i), "password-x"), Address: fmt.Sprintf("192.0.2.1:%d", 1000+i)})
		wantCode(t, err, engine.CodeAuth)
	}
	_, err := f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "192.0.2.1:9"})
	wantLimit(t, err)
	if _, err := f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "192.0.2.2:9"}); err != nil {
		t.Fatalf("another address is limited: %v", err)
	}
	f.clk.Add(limitWindow + time.Second)
	if _, err := f.s.Authenticate(ctx, Credentials{Authorization: basic("admin", "admin-password"), Address: "192.0.2.1:9"}); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestLimiterAPIKeyFailures(t *testing.T) {
	f := newFixture(t, "")
	key := f.mustCall(f.admin(), "CALL dbms.security.createApiKey('admin', 'x')")[0][1].(string)
	ctx := context.Background()
	for range limitPerAddr {
		_, err := f.s.Authenticate(ctx, Credentials{APIKey: key + "x", Address: "198.51.100.7:1"})
		wantCode(t, err, engine.CodeAuth)
	}
	_, err := f.s.Authenticate(ctx, Credentials{APIKey: key, Address: "198.51.100.7:2"})
	wantLimit(t, err)
	if _, err := f.s.Authenticate(ctx, Credentials{APIKey: key, Address: "198.51.100.8:2"}); err != nil {
		t.Fatal(err)
	}
}

func TestLimiterMemoryBounded(t *testing.T) {
	l := newLimiter()
	now := time.Unix(0, 0)
	for i := range maxTracked + 10 {
		l.fail(now, userKey(fmt.Sprint(i)), "")
	}
	if len(l.entries) > maxTracked {
		t.Fatalf("%d entries", len(l.entries))
	}
	c := newBasicCache()
	for i := range cacheEntries + 10 {
		c.add(now, fmt.Sprint(i), "pw", 1)
	}
	if len(c.entries) > cacheEntries {
		t.Fatalf("%d cache entries", len(c.entries))
	}
}
