package vectorindex

import "testing"

// BenchmarkHNSWBuild builds an index of 20000 × 128 bench-shaped
// vectors (go test -bench HNSWBuild -cpuprofile to see where a build
// goes).
func BenchmarkHNSWBuild(b *testing.B) {
	f := benchShaped(20000, 128, 20, 1)
	for b.Loop() {
		if _, err := Build(f, Config{Dim: 128, Metric: Cosine}); err != nil {
			b.Fatal(err)
		}
	}
}
