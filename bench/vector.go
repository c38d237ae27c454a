package bench

import (
	"context"
	"fmt"
	"runtime"
	"sort"
	"time"

	vectorindex "github.com/quiverdb/quiver/engine/index/vector"
)

// VectorResult is one engine's vector search figures on a VectorSet
// (bench/RESULTS-vector.md): build time and the heap it added, and per
// ef the recall@K against exact search and the queries per second of
// one client issuing the queries one after the other.
type VectorResult struct {
	Engine  string
	BuildMS float64
	// HeapMB is the live heap the index added (Go engines; runtime
	// MemStats after a GC before and after the build).
	HeapMB float64
	Points []VectorPoint
}

// VectorPoint is one search setting's figures.
type VectorPoint struct {
	Ef     int
	Recall float64
	QPS    float64
}

// GroundTruth is the exact top-k of every query of s (cosine), by the
// parallel exact search of engine/index/vector.
func GroundTruth(ctx context.Context, s *VectorSet, nq, k, workers int) ([][]uint64, error) {
	col := vectorColumn(s)
	out := make([][]uint64, nq)
	for i := range nq {
		hits, err := vectorindex.Exact(ctx, col, s.Query(i), k, vectorindex.Cosine, vectorindex.Options{Workers: workers})
		if err != nil {
			return nil, err
		}
		out[i] = hitIDs(hits)
	}
	return out, nil
}

// ExactQPS is the queries per second of the exact search over s.
func ExactQPS(ctx context.Context, s *VectorSet, nq, k, workers int) (float64, error) {
	col := vectorColumn(s)
	start := time.Now()
	for i := range nq {
		if _, err := vectorindex.Exact(ctx, col, s.Query(i), k, vectorindex.Cosine, vectorindex.Options{Workers: workers}); err != nil {
			return 0, err
		}
	}
	return float64(nq) / time.Since(start).Seconds(), nil
}

// RunQuiverHNSW builds an HNSW index over s and searches its first nq
// queries at each ef, scoring recall@k against truth.
func RunQuiverHNSW(s *VectorSet, cfg vectorindex.Config, truth [][]uint64, k int, efs []int) (VectorResult, error) {
	res := VectorResult{Engine: "quiver-hnsw"}
	before := liveHeap()
	start := time.Now()
	ix, err := vectorindex.Build(vectorColumn(s), cfg)
	if err != nil {
		return res, err
	}
	res.BuildMS = float64(time.Since(start).Microseconds()) / 1000
	res.HeapMB = float64(liveHeap()-before) / (1 << 20)
	for _, ef := range efs {
		p := VectorPoint{Ef: ef}
		start := time.Now()
		got := make([][]uint64, len(truth))
		for i := range truth {
			hits, err := ix.Search(s.Query(i), k, ef, nil)
			if err != nil {
				return res, err
			}
			got[i] = hitIDs(hits)
		}
		p.QPS = float64(len(truth)) / time.Since(start).Seconds()
		p.Recall = Recall(got, truth)
		res.Points = append(res.Points, p)
	}
	runtime.KeepAlive(ix)
	return res, nil
}

// RunQuiverHNSWCosine is RunQuiverHNSW for a cosine index of m and
// ef_construction (the command's flags; it does not import the engine's
// packages).
func RunQuiverHNSWCosine(s *VectorSet, m, efc int, truth [][]uint64, k int, efs []int) (VectorResult, error) {
	return RunQuiverHNSW(s, vectorindex.Config{Dim: s.Dim, Metric: vectorindex.Cosine, M: m, EfConstruction: efc}, truth, k, efs)
}

// Recall is the mean share of each truth list found in got's list.
func Recall(got, truth [][]uint64) float64 {
	if len(truth) == 0 {
		return 0
	}
	sum := 0.0
	for i, want := range truth {
		in := map[uint64]bool{}
		for _, id := range got[i] {
			in[id] = true
		}
		n := 0
		for _, id := range want {
			if in[id] {
				n++
			}
		}
		sum += float64(n) / float64(max(1, len(want)))
	}
	return sum / float64(len(truth))
}

func vectorColumn(s *VectorSet) *vectorindex.Flat[float32] {
	ids := make([]uint64, s.N)
	for i := range ids {
		ids[i] = uint64(i)
	}
	return &vectorindex.Flat[float32]{D: s.Dim, IDs: ids, Vecs: s.Vecs}
}

func hitIDs(hits []vectorindex.Hit) []uint64 {
	ids := make([]uint64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// String is a line of the report.
func (r VectorResult) String() string {
	pts := make([]string, len(r.Points))
	sort.Slice(r.Points, func(i, j int) bool { return r.Points[i].Ef < r.Points[j].Ef })
	for i, p := range r.Points {
		pts[i] = fmt.Sprintf("ef %d: recall@10 %.3f, %.0f QPS", p.Ef, p.Recall, p.QPS)
	}
	return fmt.Sprintf("%s: build %.1f s, heap %+.0f MB; %v", r.Engine, r.BuildMS/1000, r.HeapMB, pts)
}
