package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/temporal"
)

// BenchmarkTSAggregate compares quiver.ts.aggregate with the same hourly
// aggregation written in plain GQL, over 1M nodes with one reading every
// 3 s (834 buckets), checkpointed (docs/time-series.md, "Cost"): of a
// value column half INTEGER, half FLOAT (mixed) and of a FLOAT column.
func BenchmarkTSAggregate(b *testing.B) {
	db, err := engine.Open(b.TempDir(), engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const n = 1_000_000
	for lo := 0; lo < n; lo += 100_000 {
		res, err := db.Query(context.Background(), `UNWIND range($lo, $hi) AS i
CREATE (:M {t: localdatetime('2024-01-01T00:00') + duration({seconds: 3 * i}), v: CASE WHEN i % 2 = 0 THEN i % 1000 ELSE (i % 1000) * 0.5 END, f: (i % 1000) * 0.5})`,
			engine.Params{"lo": int64(lo), "hi": int64(lo + 99_999)})
		if err != nil {
			b.Fatal(err)
		}
		res.Close()
	}
	if res, err := db.Query(context.Background(), "CHECKPOINT", nil); err != nil {
		b.Fatal(err)
	} else {
		res.Close()
	}
	h, _ := temporal.ParseDuration("PT1H")
	params := engine.Params{"d": h, "fill": "none",
		"from": temporal.LocalDateTime{Sec: tsLocal(2024, 1, 1, 0, 0, 0).Sec},
		"to":   temporal.LocalDateTime{Sec: tsLocal(2024, 3, 1, 0, 0, 0).Sec}}
	float := strings.NewReplacer("'v'", "'f'", "n.v", "n.f")
	for _, q := range []struct{ name, text string }{
		{"mixed/procedure", tsProcQuery},
		{"mixed/plain-gql", tsPlainQuery},
		{"float/procedure", float.Replace(tsProcQuery)},
		{"float/plain-gql", float.Replace(tsPlainQuery)},
	} {
		b.Run(q.name, func(b *testing.B) {
			rows := 0
			for b.Loop() {
				if rows, err = runRows(context.Background(), db, q.text, params); err != nil {
					b.Fatal(err)
				}
			}
			if rows < 800 {
				b.Fatalf("%d buckets", rows)
			}
		})
	}
}
