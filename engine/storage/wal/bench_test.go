package wal

import (
	"bytes"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkAppendSync commits (Append then Sync, as a transaction commit
// does) 200-byte records from 1 and 32 goroutines on real fdatasyncs,
// into preallocated segments as the engine's log has them.
// With one goroutine every commit pays its own fdatasync; with 32 group
// commit shares them (fdatasyncs/commit).
func BenchmarkAppendSync(b *testing.B) {
	payload := bytes.Repeat([]byte("SET n.name = 'x' "), 12)[:200]
	for _, goroutines := range []int{1, 32} {
		b.Run(fmt.Sprintf("goroutines=%d", goroutines), func(b *testing.B) {
			l := mustOpen(b, b.TempDir(), Options{Logger: slog.New(slog.DiscardHandler), Preallocate: true})
			defer l.Close()
			before := l.syncs.Load()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range goroutines {
				wg.Go(func() {
					for next.Add(1) <= int64(b.N) {
						end, err := l.Append(payload)
						if err == nil {
							err = l.Sync(end)
						}
						if err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
			b.ReportMetric(float64(l.syncs.Load()-before)/float64(b.N), "fdatasyncs/commit")
		})
	}
}
