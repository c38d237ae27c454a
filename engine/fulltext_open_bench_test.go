package engine_test

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// BenchmarkFullTextOpen measures what a FULLTEXT index costs at open:
// QUIVER_FTS_NODES (default 100 000) nodes of ~50 words, indexed, the
// database closed and reopened; it reports the seconds from Open until
// the rebuilt index is ONLINE, the slowest MATCH answered meanwhile (the
// database answers while the index populates), and the heap the index
// holds. docs/search.md ("Durability and recovery") quotes it. Run with
// -benchtime 1x.
func BenchmarkFullTextOpen(b *testing.B) {
	n := 100_000
	if s := os.Getenv("QUIVER_FTS_NODES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	dir := b.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// Words from a skewed vocabulary of 20 000, as text is.
	r := rand.New(rand.NewPCG(34, 1))
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = "w" + strconv.Itoa(i)
	}
	const chunk = 5000
	for start := 0; start < n; start += chunk {
		rows := make([]any, 0, chunk)
		for i := start; i < min(n, start+chunk); i++ {
			words := make([]string, 50)
			for j := range words {
				words[j] = vocab[int(r.ExpFloat64()*2000)%len(vocab)]
			}
			rows = append(rows, strings.Join(words, " "))
		}
		benchQuery(b, db, "UNWIND $rows AS t CREATE (:Doc {text: t})", engine.Params{"rows": rows})
	}
	h0 := heapNow()
	t0 := time.Now()
	benchQuery(b, db, "CREATE FULLTEXT INDEX docs FOR (d:Doc) ON EACH [d.text]", nil)
	benchQuery(b, db, "CALL db.awaitIndexes(3600)", nil)
	build := time.Since(t0)
	held := heapNow() - h0
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		t0 = time.Now()
		db, err = engine.Open(dir, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		opened := time.Since(t0)
		var slowest time.Duration
		answered := 0
		for {
			rows := benchQuery(b, db, "CALL db.indexes() YIELD state RETURN state", nil)
			if len(rows) == 1 && rows[0] == "ONLINE" {
				break
			}
			q0 := time.Now()
			if got := benchQuery(b, db, "MATCH (d:Doc) RETURN count(*)", nil); len(got) != 1 || got[0] != strconv.Itoa(n) {
				b.Fatalf("count while populating = %v", got)
			}
			slowest = max(slowest, time.Since(q0))
			answered++
			time.Sleep(50 * time.Millisecond) // a client's pace, not synchronisation
		}
		online := time.Since(t0)
		b.StopTimer()
		if got := benchQuery(b, db, "CALL quiver.fts.search('docs', 'w1 AND w2', {limit: 5}) YIELD node RETURN count(*)", nil); len(got) != 1 {
			b.Fatalf("search after open = %v", got)
		}
		b.ReportMetric(online.Seconds(), "s-to-online")
		b.ReportMetric(opened.Seconds(), "s-open")
		b.ReportMetric(float64(slowest.Milliseconds()), "ms-slowest-match")
		b.ReportMetric(float64(answered), "matches-while-populating")
		b.ReportMetric(build.Seconds(), "s-create-build")
		b.ReportMetric(float64(held)/float64(n), "heap-B/node")
		db.Close()
		b.StartTimer()
	}
}

func heapNow() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// benchQuery runs q and returns its rows' first column as text.
func benchQuery(b *testing.B, db *engine.DB, q string, p engine.Params) []string {
	b.Helper()
	res, err := db.Query(context.Background(), q, p)
	if err != nil {
		b.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	var out []string
	for {
		batch, err := res.Next()
		if err != nil {
			b.Fatalf("%s: %v", q, err)
		}
		if batch == nil {
			return out
		}
		for i := 0; i < batch.Rows(); i++ {
			out = append(out, valueText(batch.Cols[0].Get(batch.Row(i))))
		}
	}
}

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	}
	return ""
}
