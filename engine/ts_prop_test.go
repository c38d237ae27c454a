package engine_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// quiver.ts.aggregate against the same aggregation written in plain GQL
// (docs/time-series.md), on random nodes and relationships whose times and
// values include nulls and values of other types, the nodes half in the
// checkpointed base, half in the delta.

const tsProcQuery = `CALL quiver.ts.aggregate({label: 'M', time: 't', value: 'v', bucket: $d, from: $from, to: $to, fill: $fill})
YIELD bucket, count, sum, avg, min, max RETURN bucket, count, sum, avg, min, max`

const tsPlainQuery = `MATCH (n:M) WHERE n.t >= $from AND n.t < $to
RETURN quiver.ts.bucket(n.t, $d) AS b, count(n.v), sum(n.v), avg(n.v), min(n.v), max(n.v) ORDER BY b`

const tsProcRelQuery = `CALL quiver.ts.aggregate({type: 'E', time: 't', value: 'v', bucket: $d, from: $from, to: $to, fill: $fill})
YIELD bucket, count, sum, avg, min, max RETURN bucket, count, sum, avg, min, max`

const tsPlainRelQuery = `MATCH ()-[r:E]->() WHERE r.t >= $from AND r.t < $to
RETURN quiver.ts.bucket(r.t, $d) AS b, count(r.v), sum(r.v), avg(r.v), min(r.v), max(r.v) ORDER BY b`

func tsLocal(y int, m time.Month, d, h, mi, s int) temporal.LocalDateTime {
	return temporal.LocalDateTime{Sec: time.Date(y, m, d, h, mi, s, 0, time.UTC).Unix()}
}

// tsRandomTime is a time around the end of February 2024 (a leap year),
// sometimes null, a string or a DATE, which no comparison with a LOCAL
// DATETIME range holds for; zoned, a ZONED DATETIME at offset.
func tsRandomTime(rng *rand.Rand, zoned bool, offset int32) vector.Value {
	switch rng.IntN(20) {
	case 0:
		return nil
	case 1:
		return "2024-02-10T10:00"
	case 2:
		return temporal.Date{Days: temporal.DaysFromCivil(2024, 2, 10)}
	}
	l := temporal.LocalDateTime{Sec: tsLocal(2024, 1, 25, 0, 0, 0).Sec + rng.Int64N(40*86400), Nanos: int32(rng.IntN(4)) * 250_000_000}
	if zoned {
		return temporal.InOffset(l, offset)
	}
	return l
}

// tsRandomValue is an INTEGER or a FLOAT of quarters (whose sums are exact
// in any order), or null.
func tsRandomValue(rng *rand.Rand) vector.Value {
	switch rng.IntN(10) {
	case 0:
		return nil
	case 1, 2, 3, 4:
		return int64(rng.IntN(101) - 50)
	}
	return float64(rng.IntN(401)-200) / 4
}

func TestTSAggregateMatchesPlainGQL(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 35))
	widths := []string{"PT1H", "PT90M", "PT6H", "P1D", "P7D", "P1M"}
	for round := range 4 {
		zoned := round%2 == 1
		offset := int32(rng.IntN(49)-24) * 30 * 60
		db := openTestDB(t)
		for part := range 2 {
			var rows []vector.Value
			for range 150 + rng.IntN(150) {
				rows = append(rows, map[string]vector.Value{"t": tsRandomTime(rng, zoned, offset), "v": tsRandomValue(rng)})
			}
			mustQuery(t, db, "UNWIND $rows AS r CREATE (:M {t: r.t, v: r.v})", engine.Params{"rows": rows})
			if part == 0 {
				mustQuery(t, db, "CHECKPOINT", nil)
			}
		}
		mustQuery(t, db, "UNWIND range(1, 20) AS i CREATE (:Other {t: localdatetime('2024-02-01T00:00'), v: i})", nil)
		// Relationships of type E between random nodes, some of type F.
		rels := map[string][]vector.Value{}
		for range 200 + rng.IntN(200) {
			typ := "E"
			if rng.IntN(5) == 0 {
				typ = "F"
			}
			rels[typ] = append(rels[typ], map[string]vector.Value{"a": int64(rng.IntN(20) + 1), "b": int64(rng.IntN(20) + 1),
				"t": tsRandomTime(rng, zoned, offset), "v": tsRandomValue(rng)})
		}
		// Half before a checkpoint, half after, then some of the base's
		// deleted: the adjacency's base, inserted and deleted entries.
		for typ, rs := range rels {
			for i, part := range [][]vector.Value{rs[:len(rs)/2], rs[len(rs)/2:]} {
				mustQuery(t, db, "UNWIND $rels AS r MATCH (a:Other {v: r.a}), (b:Other {v: r.b}) CREATE (a)-[:"+typ+" {t: r.t, v: r.v}]->(b)",
					engine.Params{"rels": part})
				if i == 0 {
					mustQuery(t, db, "CHECKPOINT", nil)
				}
			}
		}
		mustQuery(t, db, "MATCH ()-[r:E]->() WHERE r.v > 40 DELETE r", nil)
		for range 12 {
			ws := widths[rng.IntN(len(widths))]
			d, _ := temporal.ParseDuration(ws)
			lo := tsLocal(2024, 1, 20, 0, 0, 0).Sec + rng.Int64N(25*86400)
			from, to := vector.Value(temporal.LocalDateTime{Sec: lo}), vector.Value(temporal.LocalDateTime{Sec: lo + 3600 + rng.Int64N(30*86400)})
			if zoned {
				from, to = temporal.InOffset(from.(temporal.LocalDateTime), offset), temporal.InOffset(to.(temporal.LocalDateTime), offset)
			}
			params := engine.Params{"d": d, "from": from, "to": to}
			plain := algoRows(t, db, tsPlainQuery, params)
			plainRels := algoRows(t, db, tsPlainRelQuery, params)
			for _, fill := range []string{"none", "null", "zero", "previous", "linear"} {
				params["fill"] = fill
				got := algoRows(t, db, tsProcQuery, params)
				want := tsExpected(t, plain, fill, from, to, d)
				where := fmt.Sprintf("round %d, width %s, [%v, %v), fill %s", round, ws, from, to, fill)
				tsCompare(t, where, got, want)
				got = algoRows(t, db, tsProcRelQuery, params)
				tsCompare(t, where+", relationships", got, tsExpected(t, plainRels, fill, from, to, d))
			}
		}
	}
}

// tsExpected is the procedure's result derived from the plain query's
// rows: every bucket of the range for a fill other than none, the empty
// ones filled.
func tsExpected(t *testing.T, plain [][]vector.Value, fill string, from, to vector.Value, d temporal.Duration) [][]vector.Value {
	if fill == "none" {
		return plain
	}
	b, err := functions.NewBucketer("test", from, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	first, err := b.Floor(from)
	if err != nil {
		t.Fatal(err)
	}
	byBucket := map[vector.Value][]vector.Value{}
	for _, r := range plain {
		byBucket[r[0]] = r
	}
	var out [][]vector.Value
	var empty []bool
	var prev []vector.Value
	for k := int64(0); ; k++ {
		s, err := b.Start(b.Index(tsWall(first)) + k)
		if err != nil {
			t.Fatal(err)
		}
		var bv vector.Value = s
		if z, ok := from.(temporal.DateTime); ok {
			bv = temporal.InOffset(s, z.Offset)
		}
		if tw := tsWall(to); s.Sec > tw.Sec || s.Sec == tw.Sec && s.Nanos >= tw.Nanos {
			break
		}
		if r, ok := byBucket[bv]; ok {
			out, empty, prev = append(out, r), append(empty, false), r
			continue
		}
		row := []vector.Value{bv, int64(0), nil, nil, nil, nil}
		switch fill {
		case "zero":
			row = []vector.Value{bv, int64(0), int64(0), 0.0, int64(0), int64(0)}
		case "previous":
			if prev != nil {
				copy(row[2:], prev[2:])
			}
		}
		out, empty = append(out, row), append(empty, true)
	}
	if fill == "linear" {
		last := -1
		for i, r := range out {
			if empty[i] || r[3] == nil {
				continue
			}
			for j := last + 1; last >= 0 && j < i; j++ {
				if empty[j] {
					lo, hi := out[last][3].(float64), r[3].(float64)
					out[j][3] = lo + (hi-lo)*float64(j-last)/float64(i-last)
				}
			}
			last = i
		}
	}
	return out
}

func tsWall(v vector.Value) temporal.LocalDateTime {
	switch x := v.(type) {
	case temporal.DateTime:
		return x.Local()
	case temporal.Date:
		return temporal.MakeLocalDateTime(x, 0)
	}
	return v.(temporal.LocalDateTime)
}

func tsCompare(t *testing.T, where string, got, want [][]vector.Value) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d\ngot  %v\nwant %v", where, len(got), len(want), got, want)
	}
	for i := range got {
		for c := range got[i] {
			g, w := got[i][c], want[i][c]
			if gf, ok := g.(float64); ok {
				if wf, ok := w.(float64); ok && (gf == wf || math.Abs(gf-wf) < 1e-9*math.Max(1, math.Abs(wf))) {
					continue
				}
			}
			if c >= 4 && tsNumber(g) == tsNumber(w) && tsNumber(g) == tsNumber(g) {
				continue // min and max: an INTEGER and a FLOAT of one value tie
			}
			if g != w {
				t.Fatalf("%s: row %d column %d is %#v, want %#v\ngot  %v\nwant %v", where, i, c, g, w, got[i], want[i])
			}
		}
	}
}

// A non-numeric value in range is an error in both forms.
func TestTSAggregateNonNumericValue(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "CREATE (:M {t: localdatetime('2024-01-01T10:00'), v: 1}), (:M {t: localdatetime('2024-01-01T11:00'), v: 'x'})", nil)
	d, _ := temporal.ParseDuration("PT1H")
	params := engine.Params{"d": d, "from": tsLocal(2024, 1, 1, 0, 0, 0), "to": tsLocal(2024, 1, 2, 0, 0, 0), "fill": "none"}
	for _, q := range []string{tsProcQuery, tsPlainQuery} {
		if _, err := runRows(context.Background(), db, q, params); err == nil {
			t.Errorf("%s: no error for a STRING value", q)
		}
	}
}

// A transaction's call sees its own writes; others do not until it commits.
func TestTSAggregateSeesOwnWrites(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "CREATE (:M {t: localdatetime('2024-01-01T10:00'), v: 1})", nil)
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = tx.Rollback() }()
	ctx := context.Background()
	r, err := tx.Query(ctx, "CREATE (:M {t: localdatetime('2024-01-01T10:30'), v: 5})", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	d, _ := temporal.ParseDuration("PT1H")
	params := engine.Params{"d": d, "from": tsLocal(2024, 1, 1, 0, 0, 0), "to": tsLocal(2024, 1, 2, 0, 0, 0), "fill": "none"}
	res, err := tx.Query(ctx, tsProcQuery, params)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.Next()
	if err != nil || b == nil || b.Rows() != 1 {
		t.Fatalf("in the transaction: %v, %v", b, err)
	}
	if n, s := b.Cols[1].Get(b.Row(0)), b.Cols[2].Get(b.Row(0)); n != int64(2) || s != int64(6) {
		t.Errorf("in the transaction: count %v sum %v, want 2 and 6", n, s)
	}
	res.Close()
	outside := algoRows(t, db, tsProcQuery, params)
	if len(outside) != 1 || outside[0][1] != int64(1) {
		t.Errorf("outside the transaction: %v, want one bucket of count 1", outside)
	}
}

// Too many buckets is a 22023 error; the buckets' state is charged to the
// query's memory limit.
func TestTSAggregateLimits(t *testing.T) {
	db := openTestDBWith(t, engine.Options{MaxMemoryPerQuery: 16 << 20})
	mustQuery(t, db, "CREATE (:M {t: localdatetime('2024-01-01T10:00'), v: 1})", nil)
	sec, _ := temporal.ParseDuration("PT1S")
	params := engine.Params{"d": sec, "from": tsLocal(2024, 1, 1, 0, 0, 0), "to": tsLocal(2024, 3, 1, 0, 0, 0), "fill": "null"}
	_, err := runRows(context.Background(), db, tsProcQuery, params)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeInvalidParam {
		t.Errorf("5M buckets: %v, want 22023", err)
	}
	params["to"] = tsLocal(2024, 1, 12, 0, 0, 0) // 950,400 buckets: under the limit, over 16 MiB
	_, err = runRows(context.Background(), db, tsProcQuery, params)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Errorf("950k buckets under a 16 MiB limit: %v, want 53200", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.Query(ctx, tsProcQuery, params); err == nil {
		t.Errorf("a cancelled query ran")
	}
}

func tsNumber(v vector.Value) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// The buckets are charged to the statement while its result is open and
// given back when it closes.
func TestTSAggregateChargesItsBuckets(t *testing.T) {
	db := openTestDBWith(t, engine.Options{MaxMemory: 1 << 30})
	mustQuery(t, db, "CREATE (:M {t: localdatetime('2024-01-01T10:00'), v: 1})", nil)
	sec, _ := temporal.ParseDuration("PT1S")
	params := engine.Params{"d": sec, "from": tsLocal(2024, 1, 1, 0, 0, 0), "to": tsLocal(2024, 1, 2, 0, 0, 0), "fill": "null"}
	res, err := db.Query(context.Background(), tsProcQuery, params)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.Next()
	if err != nil || b == nil {
		t.Fatalf("first batch: %v, %v", b, err)
	}
	if got := db.MemoryCharged(); got < 86400*100 {
		t.Errorf("86,400 buckets open: %d bytes charged, want at least 100 a bucket", got)
	}
	res.Close()
	deadline := time.Now().Add(10 * time.Second)
	for db.MemoryCharged() != 0 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if got := db.MemoryCharged(); got != 0 {
		t.Errorf("after Close: %d bytes still charged", got)
	}
}
