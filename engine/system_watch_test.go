package engine_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// A watcher hears the keys under its prefix of each commit, once the
// commit is visible, and nothing after stop; a data commit tells nobody.
func TestWatchSystem(t *testing.T) {
	db := openSys(t, t.TempDir())
	defer db.Close()
	var mu sync.Mutex
	var got []string
	var seen []string // the value SystemGet returned inside the call
	stop := db.WatchSystem("auth/", func(keys []string) {
		mu.Lock()
		defer mu.Unlock()
		for _, k := range keys {
			got = append(got, k)
			v, _ := db.SystemGet(k)
			seen = append(seen, string(v))
		}
	})
	sysPut(t, db, sysRec("auth/a", "1"), sysRec("other/x", "2"), sysRec("auth/b", "3"))
	sysPut(t, db, sysDel("auth/a"))
	if _, err := db.Query(t.Context(), "INSERT (:N {v: 1})", nil); err != nil {
		t.Fatal(err)
	}
	stop()
	sysPut(t, db, sysRec("auth/c", "4"))
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"auth/a", "auth/b", "auth/a"}; !slices.Equal(got, want) {
		t.Fatalf("keys told %v, want %v", got, want)
	}
	if want := []string{"1", "3", ""}; !slices.Equal(seen, want) {
		t.Fatalf("values read in the call %q, want %q", seen, want)
	}
}

// SystemPutIfAbsent stores only while no key under the prefix exists.
func TestSystemPutIfAbsent(t *testing.T) {
	db := openSys(t, "")
	defer db.Close()
	ctx := t.Context()
	if err := db.Writable(); err != nil {
		t.Fatalf("a single server is writable: %v", err)
	}
	created, err := db.SystemPutIfAbsent(ctx, "u/", []engine.SystemRecord{sysRec("u/admin", "a"), sysRec("flag", "x")})
	if err != nil || !created {
		t.Fatalf("first put: %v %v", created, err)
	}
	created, err = db.SystemPutIfAbsent(ctx, "u/", []engine.SystemRecord{sysRec("u/other", "b")})
	if err != nil || created {
		t.Fatalf("second put: %v %v", created, err)
	}
	if m := sysMap(t, db); len(m) != 2 || m["u/admin"] != "a" || m["flag"] != "x" {
		t.Fatalf("records %v", m)
	}
}
