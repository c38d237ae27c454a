package engine

import (
	"context"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCommitChangeLog measures what change capture costs a commit:
// auto-commit CREATE statements with the change log off and on
// (--cdc-retention 1h), by one writer and by 8, in memory and on a data
// directory. The log is written by the change dispatcher after the
// commit is acknowledged, so its cost is CPU the writers share rather
// than wait: each run ends when the log has recorded every commit, and
// fails if the dispatcher fell so far behind that the log recorded a
// gap. docs/cdc.md ("Cost") quotes it.
func BenchmarkCommitChangeLog(b *testing.B) {
	for _, disk := range []bool{false, true} {
		for _, writers := range []int{1, 8} {
			for _, on := range []bool{false, true} {
				name := map[bool]string{false: "memory", true: "disk"}[disk] +
					"/writers=" + map[int]string{1: "1", 8: "8"}[writers] +
					"/cdc=" + map[bool]string{false: "off", true: "on"}[on]
				b.Run(name, func(b *testing.B) { benchCommits(b, disk, writers, on) })
			}
		}
	}
}

func benchCommits(b *testing.B, disk bool, writers int, cdc bool) {
	dir := ""
	if disk {
		dir = b.TempDir()
	}
	var opts Options
	if cdc {
		opts.CDCRetention = CDCRetention{MaxAge: time.Hour}
	}
	db, err := Open(dir, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	earliest := func() string {
		if !cdc {
			return ""
		}
		res, err := db.Query(context.Background(), "CALL cdc.earliest() YIELD position RETURN position", nil)
		if err != nil {
			b.Fatal(err)
		}
		defer res.Close()
		batch, err := res.Next()
		if err != nil || batch == nil {
			b.Fatal(err)
		}
		return batch.Cols[0].Get(batch.Row(0)).(string)
	}
	start := earliest()
	const text = "CREATE (:W {id: $id, c: $c, name: 'writer'})"
	var id atomic.Int64
	cpu0 := cpuTime()
	b.ResetTimer()
	if writers == 1 {
		for b.Loop() {
			n := id.Add(1)
			queryToEnd(b, db, text, Params{"id": n, "c": n % 1000})
		}
	} else {
		b.SetParallelism((writers + 1) / 2) // GOMAXPROCS 2 here: 8 goroutines
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				n := id.Add(1)
				queryToEnd(b, db, text, Params{"id": n, "c": n % 1000})
			}
		})
	}
	db.changes.Flush(time.Minute) // the log's work is part of the cost
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
	// CPU time per commit, of every goroutine (writers, WAL, change
	// dispatcher, collector): on a machine shared with other work it
	// varies far less than the wall time.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/commit")
	if e := earliest(); e != start {
		b.Fatalf("the change log recorded a gap (earliest %s, was %s): the dispatcher fell behind", e, start)
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
