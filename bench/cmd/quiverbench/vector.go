package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/quiverdb/quiver/bench"
)

// vectorBench measures vector search (make bench-vector): a clustered
// set of n vectors (bench.GenerateVectors, fixed seed), its exact top-10
// for nq queries, Quiver's exact search and HNSW index, and Kùzu's
// vector index on the same vectors in the same run; it prints the
// figures RESULTS-vector.md records.
func vectorBench(args []string) error {
	fs := flag.NewFlagSet("vector", flag.ExitOnError)
	n := fs.Int("n", 1_000_000, "vectors")
	dim := fs.Int("dim", 128, "dimensions")
	seed := fs.Uint64("seed", 1, "generator seed")
	nq := fs.Int("queries", 200, "queries (drawn from the same clusters, not in the set)")
	efList := fs.String("ef", "16,32,64,128,256", "search ef values")
	m := fs.Int("m", 16, "HNSW m (Quiver; Kùzu's mu is 2·m, its ml 4·m: its defaults)")
	efc := fs.Int("efc", 128, "HNSW ef_construction (both engines)")
	kuzuDir := fs.String("kuzu", "bench/kuzu", "npm-installed bench/kuzu (empty: skip Kùzu)")
	tmp := fs.String("tmp", os.TempDir(), "where Kùzu's database and the NumPy files go (removed after)")
	fs.Parse(args)
	var efs []int
	for _, s := range strings.Split(*efList, ",") {
		ef, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return fmt.Errorf("bad -ef %q: %w", *efList, err)
		}
		efs = append(efs, ef)
	}
	ctx := context.Background()
	workers := runtime.GOMAXPROCS(0)
	start := time.Now()
	s := bench.GenerateVectors(bench.VectorSetConfig(*n, *dim, *seed), *nq)
	fmt.Printf("set: %d × %d, %d clusters of rank %d, seed %d; generated in %.1f s\n", s.N, s.Dim, s.Clusters, s.Rank, s.Seed, time.Since(start).Seconds())
	start = time.Now()
	truth, err := bench.GroundTruth(ctx, s, *nq, 10, workers)
	if err != nil {
		return err
	}
	fmt.Printf("exact top-10 of %d queries: %.1f s (%.1f QPS, %d workers)\n", *nq, time.Since(start).Seconds(), float64(*nq)/time.Since(start).Seconds(), workers)
	res, err := bench.RunQuiverHNSWCosine(s, *m, *efc, truth, 10, efs)
	if err != nil {
		return err
	}
	fmt.Println(res)
	if *kuzuDir == "" {
		return nil
	}
	dir, err := os.MkdirTemp(*tmp, "quiverbench-vector-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ids, emb, err := s.WriteVectorNPY(dir)
	if err != nil {
		return err
	}
	k, err := bench.StartKuzu(*kuzuDir)
	if err != nil {
		return err
	}
	defer k.Close()
	kres, err := k.Vector(filepath.Join(dir, "kuzu"), []string{ids, emb}, s, map[string]any{"mu": 2 * *m, "ml": 4 * *m, "efc": *efc}, truth, 10, efs)
	if err != nil {
		return err
	}
	fmt.Println(kres)
	return nil
}
