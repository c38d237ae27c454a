package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/quiverdb/quiver/bench"
	"github.com/quiverdb/quiver/engine"
)

// query times suite queries (or any text) against an imported data
// directory, optionally under a CPU profile: the loop for profiling one
// query without the Kùzu side or the load.
func query(args []string) error {
	fs := flag.NewFlagSet("query", flag.ExitOnError)
	dir := fs.String("db", "", "data directory written by quiver import (required)")
	names := fs.String("q", "", "comma-separated suite query names (Q1,Q5, the wider suite's W01,W15, or the SNB-like suite's S01,S12 on an SNB import); empty runs Q1–Q9")
	text := fs.String("text", "", "a query text to run instead of the suite")
	runs := fs.Int("runs", 5, "timed runs per query (median reported)")
	plan := fs.Bool("profile", false, "run each query once under PROFILE and print its operators")
	cpu := fs.String("cpuprofile", "", "write a CPU profile of the timed runs to this file")
	fs.Parse(args)
	if *dir == "" {
		return fmt.Errorf("query: -db is required")
	}
	db, err := engine.Open(*dir, engine.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	type job struct{ name, text string }
	var jobs []job
	if *text != "" {
		jobs = append(jobs, job{"text", *text})
	} else {
		want := map[string]bool{}
		for _, n := range strings.Split(*names, ",") {
			if n != "" {
				want[strings.ToUpper(n)] = true
			}
		}
		all := append(bench.Suite[:len(bench.Suite):len(bench.Suite)], bench.WideSuite...)
		for _, q := range append(all, bench.SNBSuite...) {
			if len(want) == 0 && q.Shape == "" || want[q.Name] {
				jobs = append(jobs, job{q.Name, q.Quiver})
			}
		}
	}
	ctx := context.Background()
	if *plan {
		for _, j := range jobs {
			res, err := db.Profile(ctx, j.text, nil)
			if err != nil {
				return fmt.Errorf("%s: %w", j.name, err)
			}
			for b, err := res.Next(); b != nil && err == nil; b, err = res.Next() {
			}
			res.Close()
			fmt.Printf("%s total %v\n", j.name, res.Profile().TotalTime)
			for _, op := range res.Profile().Operators {
				fmt.Printf("  %+v\n", op)
			}
		}
		return nil
	}
	for _, j := range jobs { // warm-up, untimed and unprofiled
		if _, err := bench.QueryEmbedded(ctx, db, j.text); err != nil {
			return fmt.Errorf("%s: %w", j.name, err)
		}
	}
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for _, j := range jobs {
		var times []float64
		var rows bench.Rows
		for r := 0; r < *runs; r++ {
			start := time.Now()
			rows, err = bench.QueryEmbedded(ctx, db, j.text)
			if err != nil {
				return fmt.Errorf("%s: %w", j.name, err)
			}
			times = append(times, float64(time.Since(start).Microseconds())/1000)
		}
		sort.Float64s(times)
		ans := fmt.Sprint(rows)
		if len(ans) > 80 {
			ans = ans[:80] + "…"
		}
		fmt.Printf("%-4s median %8.2f ms  min %8.2f ms  %s\n", j.name, times[len(times)/2], times[0], ans)
	}
	return nil
}
