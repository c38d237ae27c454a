package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// cdcOn keeps changes for an hour.
var cdcOn = engine.Options{CDCRetention: engine.CDCRetention{MaxAge: time.Hour}}

// cdcRow is one cdc.changes row, or one change of a feed, in one shape.
type cdcRow struct {
	pos, op, entity string
	id              int64
	labels          []vector.Value
	typ             vector.Value
	before, after   vector.Value
}

func cdcPosition(t *testing.T, db *engine.DB, proc string) string {
	t.Helper()
	rows := algoRows(t, db, "CALL "+proc+"() YIELD position RETURN position", nil)
	return rows[0][0].(string)
}

// cdcAll pages cdc.changes from from to the end, limit rows a page.
func cdcAll(t *testing.T, db *engine.DB, from string, limit int) []cdcRow {
	t.Helper()
	var out []cdcRow
	for {
		rows := algoRows(t, db, "CALL cdc.changes($from, {limit: $limit}) YIELD position, operation, entity, id, labels, type, before, after "+
			"RETURN position, operation, entity, id, labels, type, before, after", engine.Params{"from": from, "limit": int64(limit)})
		for _, r := range rows {
			var labels []vector.Value
			if r[4] != nil {
				labels = r[4].([]vector.Value)
			}
			id, _ := r[3].(int64)
			out = append(out, cdcRow{pos: r[0].(string), op: r[1].(string), entity: r[2].(string), id: id, labels: labels, typ: r[5], before: r[6], after: r[7]})
			from = r[0].(string)
		}
		if len(rows) < limit {
			return out
		}
	}
}

// feedRows flattens a feed's batches into rows.
func feedRows(bs []engine.ChangeBatch) []cdcRow {
	var out []cdcRow
	for _, b := range bs {
		for _, c := range b.Changes {
			r := cdcRow{pos: engine.ChangePosition{TS: b.TS, Ordinal: c.Ordinal}.String(), op: c.Op.String(), entity: c.Entity.String(), id: int64(c.ID)}
			if c.Entity == engine.ChangeRelationship {
				r.typ = c.Type
			} else {
				r.labels = []vector.Value{}
				for _, l := range c.Labels {
					r.labels = append(r.labels, l)
				}
			}
			if m := propMap(c.Before); m != nil {
				r.before = m
			}
			if m := propMap(c.After); m != nil {
				r.after = m
			}
			out = append(out, r)
		}
	}
	return out
}

// Under concurrent writers, cdc.changes paged to the end equals what a
// live feed delivered and what a feed resuming from the start delivers;
// replaying it gives the database (no change missed, none twice, commit
// order), and positions rise strictly.
func TestCDCChangesMatchFeedAndCommits(t *testing.T) {
	db := openTestDBWith(t, cdcOn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := cdcPosition(t, db, "cdc.current")
	if e := cdcPosition(t, db, "cdc.earliest"); e != start {
		t.Fatalf("a new database: earliest %s, current %s", e, start)
	}
	live, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	var liveGot []engine.ChangeBatch
	var liveErr error
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		liveGot, liveErr = collect(ctx, live)
	}()

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	var mu sync.Mutex
	committed := map[string]bool{}
	var wg sync.WaitGroup
	werr := make(chan error, 4)
	resumed := make(chan []engine.ChangeBatch, 1)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed + int64(w)))
			if err := changeWriter(ctx, db, w, 40, rnd, &mu, committed); err != nil {
				werr <- err
			}
		}()
	}
	// A feed resuming from the start while the writers write: history,
	// then live, without a gap or a repeat.
	from, err := engine.ParseChangePosition(start)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 1 << 20, From: &from})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	readers.Add(1)
	go func() {
		defer readers.Done()
		bs, err := collect(ctx, res)
		if err != nil {
			werr <- fmt.Errorf("resumed feed: %w", err)
		}
		resumed <- bs
	}()
	wg.Wait()
	mustQuery(t, db, "CREATE (:End)", nil)
	readers.Wait()
	close(werr)
	for err := range werr {
		t.Fatal(err)
	}
	if liveErr != nil {
		t.Fatal(liveErr)
	}
	want := feedRows(liveGot)
	got := cdcAll(t, db, start, 37)
	if len(got) != len(want) {
		t.Fatalf("cdc.changes gave %d changes, the feed %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("change %d: cdc.changes %+v, the feed %+v", i, got[i], want[i])
		}
		if i > 0 && got[i].pos <= got[i-1].pos {
			t.Fatalf("positions do not rise: %s after %s", got[i].pos, got[i-1].pos)
		}
	}
	if r := feedRows(<-resumed); !reflect.DeepEqual(r, want) {
		t.Fatalf("the resumed feed gave %d changes, the live feed %d", len(r), len(want))
	}
	m := newChangeModel()
	for _, b := range liveGot {
		for i := range b.Changes {
			if err := m.apply(&b.Changes[i]); err != nil {
				t.Fatal(err)
			}
		}
	}
	final := dbState(t, db)
	if !reflect.DeepEqual(m.nodes, final.nodes) || !reflect.DeepEqual(m.rels, final.rels) {
		t.Fatalf("replaying the changes gives %d nodes, the database has %d", len(m.nodes), len(final.nodes))
	}
	if cur := cdcPosition(t, db, "cdc.current"); cur < got[len(got)-1].pos {
		t.Fatalf("cdc.current %s is before the last change %s", cur, got[len(got)-1].pos)
	}
	t.Logf("%d changes, %d explicit transactions committed", len(got), len(committed))
}

func wantCode(t *testing.T, err error, code, what string) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("%s: got %v, want an error with code %s", what, err, code)
	}
	t.Logf("%s: %s", what, e.Message)
}

func TestCDCBadInput(t *testing.T) {
	db := openTestDBWith(t, cdcOn)
	mustQuery(t, db, "CREATE (:A {x: 1})", nil)
	cur := cdcPosition(t, db, "cdc.current")
	for _, c := range []struct {
		q    string
		p    engine.Params
		code string
	}{
		{"CALL cdc.changes('nonsense')", nil, errs.CodeInvalidParam},
		{"CALL cdc.changes(null)", nil, errs.CodeInvalidParam},
		{"CALL cdc.changes('ffffffffffffffffffff')", nil, errs.CodeInvalidParam}, // the future
		{"CALL cdc.changes($p, {limit: 0})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {limit: 100000})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {colour: 1})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {patterns: ['(:A']})", engine.Params{"p": cur}, errs.CodeSyntax},
		{"CALL cdc.changes($p, {patterns: [1]})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes(42)", nil, errs.CodeSyntax}, // the binder checks argument types
		{"CALL cdc.changes('')", nil, errs.CodeInvalidParam},
		{"CALL cdc.changes('0000000000000001ffzz')", nil, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {limit: -1})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {limit: 'ten'})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {limit: 1.5})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {limit: 9223372036854775807})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, 5)", engine.Params{"p": cur}, errs.CodeSyntax},
		{"CALL cdc.changes($p, $o)", engine.Params{"p": cur, "o": int64(5)}, errs.CodeInvalidParam}, // known at run time only
		{"CALL cdc.changes($p)", engine.Params{"p": int64(42)}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {patterns: '(:A)'})", engine.Params{"p": cur}, errs.CodeInvalidParam},
		{"CALL cdc.changes($p, {patterns: ['(:A)-[:R]']})", engine.Params{"p": cur}, errs.CodeSyntax},
		{"CALL cdc.changes($p, {patterns: ['']})", engine.Params{"p": cur}, errs.CodeSyntax},
	} {
		wantCode(t, queryErr(t, db, c.q, c.p), c.code, c.q)
	}
	off := openTestDB(t)
	wantCode(t, queryErr(t, off, "CALL cdc.current()", nil), errs.CodeNotSupported, "change capture off")
}

// A position older than the retention is an error, not fewer changes;
// cdc.earliest moves past what was dropped and still works.
func TestCDCRetention(t *testing.T) {
	db := openTestDBWith(t, engine.Options{CDCRetention: engine.CDCRetention{MaxBytes: 256 << 10}})
	start := cdcPosition(t, db, "cdc.current")
	for i := range 400 {
		mustQuery(t, db, "CREATE (:A {i: $i, pad: $pad})", engine.Params{"i": int64(i), "pad": fmt.Sprintf("%01000d", i)})
	}
	db.SaveBase() // waits for the change log to record every commit
	earliest := cdcPosition(t, db, "cdc.earliest")
	if earliest <= start {
		t.Fatalf("400 commits of 1 KB with 256 KB kept: earliest %s, start %s", earliest, start)
	}
	wantCode(t, queryErr(t, db, "CALL cdc.changes($p)", engine.Params{"p": start}), errs.CodeOverflow, "a position past the retention")
	from, _ := engine.ParseChangePosition(start)
	_, err := db.SubscribeChanges(engine.SubscribeOptions{From: &from})
	wantCode(t, err, errs.CodeOverflow, "resuming past the retention")
	rows := cdcAll(t, db, earliest, 1000)
	if len(rows) == 0 || len(rows) >= 400 {
		t.Fatalf("%d changes kept of 400", len(rows))
	}
	if last := rows[len(rows)-1].after.(map[string]vector.Value)["i"]; last != int64(399) {
		t.Fatalf("the last change kept is of node %v", last)
	}
}

// Positions and changes survive a clean restart and a crash: after
// kill -9 the change log holds every acknowledged commit once (what it
// had not recorded is replayed from the write-ahead log into it).
func TestCDCSurvivesRestartAndCrash(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, cdcOn)
	if err != nil {
		t.Fatal(err)
	}
	start := cdcPosition(t, db, "cdc.current")
	for i := range 50 {
		mustQuery(t, db, "CREATE (:A {i: $i})", engine.Params{"i": int64(i)})
	}
	before := cdcAll(t, db, start, 1000)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = engine.Open(dir, cdcOn); err != nil {
		t.Fatal(err)
	}
	if got := cdcAll(t, db, start, 1000); !reflect.DeepEqual(got, before) {
		t.Fatalf("after a restart: %d changes, before %d", len(got), len(before))
	}
	for i := 50; i < 120; i++ {
		mustQuery(t, db, "MATCH (n:A {i: $j}) SET n.i = $i", engine.Params{"i": int64(i), "j": int64(i - 50)})
	}
	engine.Abandon(db)
	// The crash also takes the change log's last records (not yet
	// synced): recovery replays those commits into it.
	segs, _ := filepath.Glob(filepath.Join(dir, "cdc", "*.cdc"))
	if len(segs) == 0 {
		t.Fatal("no change log segment")
	}
	last := segs[len(segs)-1]
	st, err := os.Stat(last)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(last, st.Size()*3/4); err != nil {
		t.Fatal(err)
	}
	if db, err = engine.Open(dir, cdcOn); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := cdcAll(t, db, start, 1000)
	if len(got) != 120 || !reflect.DeepEqual(got[:50], before) {
		t.Fatalf("after a crash: %d changes, want 120", len(got))
	}
	for i, r := range got[50:] {
		if r.op != "updated" || r.after.(map[string]vector.Value)["i"] != int64(50+i) {
			t.Fatalf("change %d after the crash: %+v", 50+i, r)
		}
	}
}

// A commit of more than MaxChangesPerCommit entities is one bulk row, as
// on the stream; patterns select it by label.
func TestCDCBulkCommit(t *testing.T) {
	db := openTestDBWith(t, cdcOn)
	start := cdcPosition(t, db, "cdc.current")
	mustQuery(t, db, "UNWIND range(1, 10001) AS i CREATE (:B {i: i})", nil)
	mustQuery(t, db, "CREATE (:C)", nil)
	rows := algoRows(t, db, "CALL cdc.changes($p) YIELD operation, entity, labels, after RETURN operation, entity, labels, after", engine.Params{"p": start})
	if len(rows) != 2 || rows[0][0] != "bulk" || rows[0][1] != "commit" || rows[0][3].(map[string]vector.Value)["nodes_created"] != int64(10001) ||
		!reflect.DeepEqual(rows[0][2], []vector.Value{"B"}) || rows[1][0] != "created" {
		t.Fatalf("rows %v", rows)
	}
	rows = algoRows(t, db, "CALL cdc.changes($p, {patterns: ['(:C)']}) YIELD operation RETURN operation", engine.Params{"p": start})
	if len(rows) != 1 || rows[0][0] != "created" {
		t.Fatalf("(:C): %v", rows)
	}
}

// Commits made while change capture was off are a gap: positions before
// it are refused (22003), and the log goes on after it.
func TestCDCOffMeanwhile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	open := func(o engine.Options) *engine.DB {
		db, err := engine.Open(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open(cdcOn)
	start := cdcPosition(t, db, "cdc.current")
	mustQuery(t, db, "CREATE (:A)", nil)
	db.Close()
	db = open(engine.Options{})
	mustQuery(t, db, "CREATE (:B)", nil)
	db.Close()
	db = open(cdcOn)
	defer db.Close()
	wantCode(t, queryErr(t, db, "CALL cdc.changes($p)", engine.Params{"p": start}), errs.CodeOverflow, "a position before the gap")
	earliest := cdcPosition(t, db, "cdc.earliest")
	mustQuery(t, db, "CREATE (:C)", nil)
	rows := cdcAll(t, db, earliest, 10)
	if len(rows) != 1 || !reflect.DeepEqual(rows[0].labels, []vector.Value{"C"}) {
		t.Fatalf("after the gap: %+v", rows)
	}
}

// Feeds resuming from positions taken while writers commit (some of
// them inside a commit) each get exactly the changes after their
// position: what a live feed got after it, nothing missed or repeated.
func TestCDCResumeWhileWriting(t *testing.T) {
	db := openTestDBWith(t, cdcOn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	live, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	start, err := engine.ParseChangePosition(cdcPosition(t, db, "cdc.current"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 60 {
				res, err := db.Query(ctx, "CREATE (:W {w: $w, i: $i}), (:W {w: $w, i: $i, twin: true})", engine.Params{"w": int64(w), "i": int64(i)})
				if err != nil {
					t.Error(err)
					return
				}
				res.Close()
			}
		}()
	}
	type resumed struct {
		from engine.ChangePosition
		got  []engine.ChangeBatch
		err  error
	}
	var rs []*resumed
	var readers sync.WaitGroup
	for k := range 6 {
		p, err := engine.ParseChangePosition(cdcPosition(t, db, "cdc.current"))
		if err != nil {
			t.Fatal(err)
		}
		if k%2 == 1 && p.TS > start.TS { // inside a commit: after its first change
			p = engine.ChangePosition{TS: p.TS, Ordinal: 0}
		}
		f, err := db.SubscribeChanges(engine.SubscribeOptions{Buffer: 1 << 20, From: &p})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		r := &resumed{from: p}
		rs = append(rs, r)
		readers.Add(1)
		go func() {
			defer readers.Done()
			r.got, r.err = collect(ctx, f)
		}()
	}
	wg.Wait()
	mustQuery(t, db, "CREATE (:End)", nil)
	readers.Wait()
	liveGot, err := collect(ctx, live)
	if err != nil {
		t.Fatal(err)
	}
	all := feedRows(liveGot)
	for _, r := range rs {
		if r.err != nil {
			t.Fatal(r.err)
		}
		var want []cdcRow
		for _, row := range all {
			if row.pos > r.from.String() {
				want = append(want, row)
			}
		}
		if got := feedRows(r.got); !reflect.DeepEqual(got, want) {
			t.Fatalf("resumed after %s: %d changes, want %d", r.from, len(got), len(want))
		}
	}
}

// What cdc.changes holds (its rows, the record it decodes) is charged to
// the query: a page bigger than max_memory_per_query fails with 53200,
// a smaller page of the same history answers.
func TestCDCChangesCharged(t *testing.T) {
	opts := cdcOn
	opts.MaxMemoryPerQuery = 1 << 20
	db := openTestDBWith(t, opts)
	start := cdcPosition(t, db, "cdc.current")
	for range 20 {
		mustQuery(t, db, "UNWIND range(1, 100) AS i CREATE (:A {i: i, pad: $pad})", engine.Params{"pad": strings.Repeat("x", 200)})
	}
	wantCode(t, queryErr(t, db, "CALL cdc.changes($p, {limit: 10000}) YIELD id RETURN count(*)", engine.Params{"p": start}), errs.CodeOutOfMemory, "2000 changes of 200 bytes under 1 MB")
	if rows := mustQuery(t, db, "CALL cdc.changes($p, {limit: 100}) YIELD id RETURN count(*)", engine.Params{"p": start}); len(rows) != 1 || rows[0] != "100" {
		t.Fatalf("a page of 100: %v", rows)
	}
}
