package engine_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

func sysPut(t *testing.T, db *engine.DB, recs ...engine.SystemRecord) {
	t.Helper()
	if err := db.SystemPut(t.Context(), recs); err != nil {
		t.Fatalf("SystemPut: %v", err)
	}
}

func sysRec(k, v string) engine.SystemRecord { return engine.SystemRecord{Key: k, Value: []byte(v)} }
func sysDel(k string) engine.SystemRecord    { return engine.SystemRecord{Key: k} }

// sysMap is SystemScan("") as a map, checking the scan's order.
func sysMap(t *testing.T, db *engine.DB) map[string]string {
	t.Helper()
	m := map[string]string{}
	prev := ""
	for i, r := range db.SystemScan("") {
		if i > 0 && r.Key <= prev {
			t.Fatalf("SystemScan not sorted: %q after %q", r.Key, prev)
		}
		prev = r.Key
		m[r.Key] = string(r.Value)
	}
	return m
}

func sysTruncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func openSys(t *testing.T, dir string) *engine.DB {
	t.Helper()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestSystemPutGetScanDelete(t *testing.T) {
	for _, dir := range []string{"", "data"} {
		t.Run(fmt.Sprintf("dir=%q", dir), func(t *testing.T) {
			if dir != "" {
				dir = filepath.Join(t.TempDir(), dir)
			}
			db := openSys(t, dir)
			defer db.Close()
			sysPut(t, db, sysRec("user/bob", "b"), sysRec("user/ann", "a"), sysRec("role/admin", ""), sysRec("userx", "x"))
			if v, ok := db.SystemGet("user/ann"); !ok || string(v) != "a" {
				t.Fatalf("SystemGet(user/ann) = %q, %v", v, ok)
			}
			if v, ok := db.SystemGet("role/admin"); !ok || v == nil || len(v) != 0 {
				t.Fatalf("an empty value reads back as %v, %v", v, ok)
			}
			if _, ok := db.SystemGet("user/zed"); ok {
				t.Fatal("an absent key was found")
			}
			got := db.SystemScan("user/")
			if len(got) != 2 || got[0].Key != "user/ann" || got[1].Key != "user/bob" || string(got[1].Value) != "b" {
				t.Fatalf("SystemScan(user/) = %+v", got)
			}
			got[0].Value[0] = 'Z' // the caller's copy
			if v, _ := db.SystemGet("user/ann"); string(v) != "a" {
				t.Fatal("a scanned value aliases the store")
			}
			if n := len(db.SystemScan("")); n != 4 {
				t.Fatalf("SystemScan(\"\") has %d records", n)
			}
			if len(db.SystemScan("nope")) != 0 {
				t.Fatal("a prefix nothing has matched")
			}
			// Overwrite, delete, delete of an absent key; the last record of
			// a key in one put wins.
			sysPut(t, db, sysRec("user/ann", "a2"), sysDel("user/bob"), sysDel("ghost"), sysRec("k", "1"), sysRec("k", "2"), sysRec("gone", "x"), sysDel("gone"))
			want := map[string]string{"user/ann": "a2", "role/admin": "", "userx": "x", "k": "2"}
			if got := sysMap(t, db); !reflect.DeepEqual(got, want) {
				t.Fatalf("after the second put: %v, want %v", got, want)
			}
			if err := db.SystemPut(t.Context(), nil); err != nil {
				t.Fatalf("an empty put: %v", err)
			}
			if err := db.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Each limit is a 22023 error that writes nothing of the put, not even
// its valid records.
func TestSystemPutLimits(t *testing.T) {
	db := openSys(t, "")
	defer db.Close()
	many := make([]engine.SystemRecord, engine.MaxSystemRecordsPerPut+1)
	for i := range many {
		many[i] = sysRec(fmt.Sprint("k", i), "v")
	}
	big := make([]engine.SystemRecord, 65)
	for i := range big {
		big[i] = engine.SystemRecord{Key: fmt.Sprint("b", i), Value: make([]byte, engine.MaxSystemValueBytes)}
	}
	for name, recs := range map[string][]engine.SystemRecord{
		"empty key":      {sysRec("ok", "1"), sysRec("", "x")},
		"long key":       {sysRec("ok", "1"), sysRec(strings.Repeat("k", engine.MaxSystemKeyBytes+1), "x")},
		"big value":      {sysRec("ok", "1"), {Key: "v", Value: make([]byte, engine.MaxSystemValueBytes+1)}},
		"too many":       many,
		"too many bytes": big,
	} {
		err := db.SystemPut(t.Context(), recs)
		e, ok := errs.As(err)
		if !ok || e.Code != errs.CodeInvalidParam || e.Category != errs.CatData {
			t.Fatalf("%s: %v, want a 22023 error", name, err)
		}
		if n := len(db.SystemScan("")); n != 0 {
			t.Fatalf("%s: %d records written", name, n)
		}
	}
	// The limits themselves are fine.
	sysPut(t, db, engine.SystemRecord{Key: strings.Repeat("k", engine.MaxSystemKeyBytes), Value: make([]byte, engine.MaxSystemValueBytes)})
	if n := len(db.SystemScan("")); n != 1 {
		t.Fatalf("%d records after a put at the limits", n)
	}
	// A context already done writes nothing.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := db.SystemPut(ctx, []engine.SystemRecord{sysRec("late", "x")}); err == nil {
		t.Fatal("a put with a cancelled context succeeded")
	}
	if _, ok := db.SystemGet("late"); ok {
		t.Fatal("a cancelled put wrote")
	}
}

// Records survive a clean close, a checkpoint followed by more puts, and
// a crash (no final checkpoint: the log holds them); deletes likewise.
func TestSystemRecordsDurable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db := openSys(t, dir)
	sysPut(t, db, sysRec("a", "1"), sysRec("b", "2"), sysRec("c", "3"))
	db.Close()

	db = openSys(t, dir)
	if got, want := sysMap(t, db), map[string]string{"a": "1", "b": "2", "c": "3"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("after close and reopen: %v, want %v", got, want)
	}
	sysPut(t, db, sysRec("d", "4"), sysDel("a"))
	if _, err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	sysPut(t, db, sysRec("e", "5"), sysDel("b"), sysRec("c", "33"))
	want := map[string]string{"c": "33", "d": "4", "e": "5"}
	engine.Abandon(db) // the last put is only in the log

	db = openSys(t, dir)
	if got := sysMap(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("after checkpoint, more puts and a crash: %v, want %v", got, want)
	}
	if d := db.Durability(); d.WALLSN == d.LastCheckpointLSN {
		t.Fatalf("the crash left nothing to replay (%+v): the test proves nothing", d)
	}
	// A checkpoint trims the log: the records live on in the base alone.
	if _, err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	engine.Abandon(db)
	db = openSys(t, dir)
	defer db.Close()
	if got := sysMap(t, db); !reflect.DeepEqual(got, want) {
		t.Fatalf("from the checkpoint alone: %v, want %v", got, want)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

// A put acknowledged before the log was cut survives; one whose record
// the cut tore is gone whole (atomic across its records). Offsets come
// from log positions: segment files may be preallocated past their data.
func TestSystemPutTornLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db := openSys(t, dir)
	sysPut(t, db, sysRec("first", "1"))
	seg := walSegments(t, dir)
	path := seg[len(seg)-1]
	base := segmentBase(t, path)
	before := int64(db.Durability().WALLSN - base)
	// Values that do not compress, so that the record is long.
	rng := rand.New(rand.NewSource(1))
	va, vb := make([]byte, 100), make([]byte, 100)
	rng.Read(va)
	rng.Read(vb)
	sysPut(t, db, engine.SystemRecord{Key: "second/a", Value: va}, engine.SystemRecord{Key: "second/b", Value: vb})
	after := int64(db.Durability().WALLSN - base)
	if len(walSegments(t, dir)) != len(seg) || after <= before+200 {
		t.Fatalf("log positions %d, %d: the put did not land in one segment", before, after)
	}
	engine.Abandon(db)
	for _, cut := range []int64{before + 1, (before + after) / 2, after - 1, after} {
		scratch := filepath.Join(t.TempDir(), "copy")
		copyTree(t, dir, scratch)
		sysTruncate(t, filepath.Join(scratch, engine.WALDirName, filepath.Base(path)), cut)
		db := openSys(t, scratch)
		got := sysMap(t, db)
		want := map[string]string{"first": "1"}
		if cut == after {
			want["second/a"], want["second/b"] = string(va), string(vb)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("cut at %d (records end at %d, %d): %d records, want %d", cut, before, after, len(got), len(want))
		}
		engine.Abandon(db)
	}
}

// Queries never see system records, and neither do change feeds: a
// subscriber's first batch is the data write after the put.
func TestSystemRecordsInvisible(t *testing.T) {
	db := openSys(t, filepath.Join(t.TempDir(), "data"))
	defer db.Close()
	feed, err := db.SubscribeChanges(engine.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	sysPut(t, db, sysRec("user/ann", "secret"), sysRec("user/bob", "secret"))
	if got := one(t, db, "MATCH (n) RETURN count(n)"); got != "0" {
		t.Fatalf("MATCH sees %s nodes after a system put", got)
	}
	if got := one(t, db, "MATCH ()-[r]->() RETURN count(r)"); got != "0" {
		t.Fatalf("MATCH sees %s relationships after a system put", got)
	}
	mustQuery(t, db, "CREATE (:Data {x: 1})", nil)
	b, err := feed.Next(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Changes) != 1 || b.Changes[0].Op != engine.ChangeCreated || b.Changes[0].Entity != engine.ChangeNode {
		t.Fatalf("the first batch after a system put is %+v, want the node's creation", b)
	}
	if n := feed.Queued(); n != 0 {
		t.Fatalf("%d more changes queued", n)
	}
	if got := one(t, db, "MATCH (n) RETURN count(n)"); got != "1" {
		t.Fatalf("count(n) = %s", got)
	}
}

// Concurrent puts and reads: every put is atomic to readers (a reader
// sees both records of a put or neither), and none is lost.
func TestSystemPutConcurrent(t *testing.T) {
	db := openSys(t, filepath.Join(t.TempDir(), "data"))
	defer db.Close()
	const writers, puts = 4, 30
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errc := make(chan error, writers+2)
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range puts {
				v := []byte(fmt.Sprint(i))
				err := db.SystemPut(context.Background(), []engine.SystemRecord{
					{Key: fmt.Sprintf("w%d/a", g), Value: v}, {Key: fmt.Sprintf("w%d/b", g), Value: v},
					{Key: fmt.Sprintf("w%d/n%d", g, i), Value: v},
				})
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for g := range writers {
					var a, b []byte
					for _, r := range db.SystemScan(fmt.Sprintf("w%d/", g)) {
						switch r.Key {
						case fmt.Sprintf("w%d/a", g):
							a = r.Value
						case fmt.Sprintf("w%d/b", g):
							b = r.Value
						}
					}
					if !bytes.Equal(a, b) {
						errc <- fmt.Errorf("writer %d: a=%q b=%q: a put was seen half done", g, a, b)
						return
					}
					db.SystemGet(fmt.Sprintf("w%d/a", g))
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if n := len(db.SystemScan("")); n != writers*(puts+2) {
		t.Fatalf("%d records, want %d", n, writers*(puts+2))
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

// Random puts and deletes, interleaved with data writes, checkpoints,
// clean reopens and crashes, always agree with a map model.
func TestSystemRecordsModel(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			dir := filepath.Join(t.TempDir(), "data")
			db := openSys(t, dir)
			defer func() { db.Close() }()
			model := map[string]string{}
			for step := range 120 {
				switch r := rng.Intn(20); {
				case r == 0:
					if _, err := db.Checkpoint(); err != nil {
						t.Fatal(err)
					}
				case r == 1:
					db.Close()
					db = openSys(t, dir)
				case r == 2:
					engine.Abandon(db)
					db = openSys(t, dir)
				case r == 3:
					mustQuery(t, db, "CREATE (:N {step: $s})", engine.Params{"s": int64(step)})
				default:
					var recs []engine.SystemRecord
					for range 1 + rng.Intn(5) {
						k := fmt.Sprintf("k/%02d", rng.Intn(30))
						if rng.Intn(3) == 0 {
							recs = append(recs, sysDel(k))
							delete(model, k)
						} else {
							v := strings.Repeat(string(rune('a'+rng.Intn(26))), rng.Intn(40))
							recs = append(recs, sysRec(k, v))
							model[k] = v
						}
					}
					sysPut(t, db, recs...)
				}
				if got := sysMap(t, db); !reflect.DeepEqual(got, model) {
					t.Fatalf("step %d: %v, want %v", step, got, model)
				}
			}
			if err := db.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
