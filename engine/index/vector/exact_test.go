package vectorindex

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/engine/memory"
)

func TestExactMatchesNaive(t *testing.T) {
	f := clustered(3000, 16, 12, 7)
	f.Rows = 97 // many morsels, a short last one
	// FLOAT64 column of the same vectors: the kernels are generic.
	f64 := &Flat[float64]{D: f.D, IDs: f.IDs, Vecs: make([]float64, len(f.Vecs)), Rows: 101}
	for i, x := range f.Vecs {
		f64.Vecs[i] = float64(x)
	}
	odd := func(id uint64) bool { return id%2 == 1 }
	for _, m := range []Metric{Cosine, Euclidean, Dot} {
		for _, workers := range []int{1, 3} {
			for qi := range 5 {
				q := f.Vector(qi * 411)
				for _, accept := range []func(uint64) bool{nil, odd} {
					got, err := Exact(context.Background(), f, q, 10, m, Options{Workers: workers, Accept: accept})
					if err != nil {
						t.Fatal(err)
					}
					want := naive(f, q, 10, m, accept)
					if len(got) != len(want) {
						t.Fatalf("%s workers %d: %d hits, want %d", m, workers, len(got), len(want))
					}
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("%s workers %d query %d: hit %d = %+v, want %+v", m, workers, qi, i, got[i], want[i])
						}
						if accept != nil && !accept(got[i].ID) {
							t.Fatalf("hit %d fails the filter", got[i].ID)
						}
					}
					q64 := f64.Vector(qi * 411)
					got64, err := Exact(context.Background(), f64, q64, 10, m, Options{Workers: workers, Accept: accept})
					if err != nil {
						t.Fatal(err)
					}
					if r := recall(got64, naive(f64, q64, 10, m, accept)); r != 1 {
						t.Fatalf("%s FLOAT64: recall %v", m, r)
					}
				}
			}
		}
	}
}

func TestExactErrors(t *testing.T) {
	f := clustered(500, 8, 3, 1)
	f.Rows = 10
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Exact(ctx, f, f.Vector(0), 5, Cosine, Options{Workers: 2}); err == nil {
		t.Fatal("a cancelled search succeeded")
	}
	_, err := Exact(context.Background(), f, []float32{1, 2}, 5, Cosine, Options{Workers: 2})
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeData {
		t.Fatalf("dimension mismatch: %v, want %s", err, errs.CodeData)
	}
	mem := &memory.Tracker{Limit: 1000}
	_, err = Exact(context.Background(), f, f.Vector(0), 5, Cosine, Options{Workers: 2, Mem: mem})
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("over the memory limit: %v, want %s", err, errs.CodeOutOfMemory)
	}
	if mem.Used() != 0 {
		t.Fatalf("%d bytes still charged", mem.Used())
	}
	mem = &memory.Tracker{Limit: 1 << 30}
	if _, err := Exact(context.Background(), f, f.Vector(0), 5, Cosine, Options{Workers: 2, Mem: mem}); err != nil {
		t.Fatal(err)
	}
	if mem.Peak() == 0 || mem.Used() != 0 {
		t.Fatalf("peak %d, used %d: want a charge, all released", mem.Peak(), mem.Used())
	}
}
