package stream

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkStreamFanout measures change events delivered per second to
// 100 WebSocket subscribers while 8 writers commit one-node CREATEs
// (b.N commits in all). Each subscriber must receive every change; the
// time runs from the first commit to the last delivery. The lead's
// end-to-end run does the same with HTTP clients as the writers, counting
// deliveries with Watch (or Server.Stats().Delivered).
func BenchmarkStreamFanout(b *testing.B) {
	for _, subs := range []int{1, 100} {
		b.Run(fmt.Sprintf("subscribers=%d", subs), func(b *testing.B) {
			benchFanout(b, subs, 8)
		})
	}
}

func benchFanout(b *testing.B, subscribers, writers int) {
	ts := newBenchStream(b)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ws := make([]*Watcher, subscribers)
	for i := range ws {
		w, err := Watch(ctx, ts.url, "", []string{"(:E)"})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		ws[i] = w
	}
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	per := (b.N + writers - 1) / writers
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				res, err := ts.db.Query(ctx, "CREATE (:E {i: $i})", map[string]any{"i": int64(i)})
				if err != nil {
					b.Error(err)
					return
				}
				res.Close()
			}
		}()
	}
	wg.Wait()
	commits := time.Since(start)
	want := uint64(per * writers)
	for _, w := range ws {
		for w.Changes() < want {
			select {
			case <-w.Done():
				b.Fatalf("a subscriber ended after %d of %d changes: %v", w.Changes(), want, w.Err())
			case <-ctx.Done():
				b.Fatal("timed out")
			case <-time.After(time.Millisecond):
			}
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(want)*float64(subscribers)/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(want)/commits.Seconds(), "commits/s")
}
