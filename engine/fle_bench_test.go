package engine_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// What field-level encryption costs: reading and writing a property
// sealed under a randomized key, against the same property plain.
//
//	go test ./engine/ -run '^$' -bench FieldEncryption -benchtime 5x

const fleBenchNodes = 100_000

func fleBenchDB(b *testing.B, encrypted bool) *engine.DB {
	b.Helper()
	db, err := engine.Open(b.TempDir(), engine.Options{Encryption: tdeKey(5)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	admin := adminOf(db)
	if encrypted {
		for _, q := range []string{"CALL quiver.fle.createKey('k')", "CALL quiver.fle.grantKey('k', 'admin')",
			"CALL quiver.fle.encryptProperty('P', 'x', 'k')"} {
			if _, err := drainQuery(admin, q); err != nil {
				b.Fatal(err)
			}
		}
	}
	if _, err := drainQuery(admin, fmt.Sprintf("UNWIND range(1, %d) AS i CREATE (:P {x: i %% 1000, name: 'p' + toString(i)})", fleBenchNodes)); err != nil {
		b.Fatal(err)
	}
	return db
}

func drainQuery(a as, q string) ([]string, error) {
	res, err := a.Query(context.Background(), q, nil)
	if err != nil {
		return nil, err
	}
	return drain(res)
}

func BenchmarkFieldEncryption(b *testing.B) {
	for _, encrypted := range []bool{false, true} {
		name := "plain"
		if encrypted {
			name = "sealed"
		}
		b.Run("read/"+name, func(b *testing.B) {
			admin := adminOf(fleBenchDB(b, encrypted))
			b.ResetTimer()
			for range b.N {
				rows, err := drainQuery(admin, "MATCH (p:P) RETURN sum(p.x)")
				if err != nil || len(rows) != 1 || rows[0] != "49950000" {
					b.Fatalf("%v %v", rows, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/fleBenchNodes, "ns/value")
		})
		b.Run("write/"+name, func(b *testing.B) {
			admin := adminOf(fleBenchDB(b, encrypted))
			b.ResetTimer()
			for range b.N {
				if _, err := drainQuery(admin, "MATCH (p:P) SET p.x = p.x + 1"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/fleBenchNodes, "ns/value")
		})
	}
}
