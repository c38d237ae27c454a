package bench

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func readKron(t *testing.T, dir string) (nodes, edges []byte) {
	t.Helper()
	var err error
	if nodes, err = os.ReadFile(filepath.Join(dir, KronNodesFile)); err != nil {
		t.Fatal(err)
	}
	if edges, err = os.ReadFile(filepath.Join(dir, KronEdgesFile)); err != nil {
		t.Fatal(err)
	}
	return nodes, edges
}

// The same scale and seed give the same files whatever the number of
// workers; another seed gives another graph.
func TestKroneckerDeterministic(t *testing.T) {
	base := t.TempDir()
	gen := func(name string, seed uint64, workers int) ([]byte, []byte) {
		dir := filepath.Join(base, name)
		if _, err := WriteKronecker(dir, 10, seed, workers); err != nil {
			t.Fatal(err)
		}
		return readKron(t, dir)
	}
	n1, e1 := gen("a", 7, 1)
	n3, e3 := gen("b", 7, 3)
	if !bytes.Equal(n1, n3) || !bytes.Equal(e1, e3) {
		t.Fatal("1 and 3 workers wrote different files for the same seed")
	}
	_, e2 := gen("c", 8, 2)
	if bytes.Equal(e1, e2) {
		t.Fatal("seeds 7 and 8 gave the same edges")
	}
}

// Edge count, ranges and skew of a scale-12 graph: 16 edges per vertex
// drawn, self-loops dropped; endpoints and weights in range; a degree
// distribution far from uniform.
func TestKroneckerGraph(t *testing.T) {
	dir := t.TempDir()
	const scale = 12
	st, err := WriteKronecker(dir, scale, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(1) << scale
	if st.Vertices != n || st.Edges+st.SelfLoops != KronEdgeFactor*n || st.SelfLoops == 0 || st.SelfLoops > st.Edges/50 {
		t.Fatalf("stats %+v", st)
	}
	nodes, edges := readKron(t, dir)
	nl := strings.Split(strings.TrimSuffix(string(nodes), "\n"), "\n")
	if int64(len(nl)) != n+1 || nl[0] != "id:INT64" || nl[1] != "0" || nl[n] != strconv.FormatInt(n-1, 10) {
		t.Fatalf("nodes file: %d lines, %q … %q", len(nl), nl[:2], nl[len(nl)-1])
	}
	el := strings.Split(strings.TrimSuffix(string(edges), "\n"), "\n")
	if el[0] != "from:INT64,to:INT64,weight:DOUBLE" || int64(len(el)-1) != st.Edges {
		t.Fatalf("edges file: header %q, %d edges, stats say %d", el[0], len(el)-1, st.Edges)
	}
	deg := make([]int64, n)
	wsum := 0.0
	for _, l := range el[1:] {
		f := strings.Split(l, ",")
		s, err1 := strconv.ParseInt(f[0], 10, 64)
		d, err2 := strconv.ParseInt(f[1], 10, 64)
		w, err3 := strconv.ParseInt(f[2], 10, 64)
		if len(f) != 3 || err1 != nil || err2 != nil || err3 != nil || s < 0 || s >= n || d < 0 || d >= n || s == d || w < 1 || w > KronMaxWeight {
			t.Fatalf("bad edge line %q", l)
		}
		deg[s]++
		deg[d]++
		wsum += float64(w)
	}
	if mean := wsum / float64(st.Edges); math.Abs(mean-128) > 2 {
		t.Errorf("mean weight %.2f, want about 128", mean)
	}
	slices.Sort(deg)
	mean := float64(2*st.Edges) / float64(n)
	isolated, _ := slices.BinarySearch(deg, 1)
	// Kronecker graphs at this scale: a hub of several hundred edges
	// (~30× the mean degree of 32) and about a fifth of the vertices
	// without any; a uniform random graph would have neither.
	if float64(deg[n-1]) < 15*mean || float64(isolated) < 0.1*float64(n) {
		t.Errorf("degree skew: max %d (mean %.1f), %d of %d vertices isolated", deg[n-1], mean, isolated, n)
	}
	t.Logf("scale %d: max degree %d, mean %.1f, median %d, isolated %d", scale, deg[n-1], mean, deg[n/2], isolated)
}

// One level of the recursion picks the quadrants with probabilities A,
// B, C and D.
func TestKroneckerQuadrants(t *testing.T) {
	rng := rand.NewPCG(1, 2)
	var count [2][2]int
	const draws = 200_000
	for range draws {
		s, d := kronEdge(rng, 1)
		count[s][d]++
	}
	for _, c := range []struct {
		s, d int
		p    float64
	}{{0, 0, KronA}, {0, 1, KronB}, {1, 0, KronC}, {1, 1, 1 - KronA - KronB - KronC}} {
		if got := float64(count[c.s][c.d]) / draws; math.Abs(got-c.p) > 0.005 {
			t.Errorf("quadrant (%d,%d): %.4f, want %.2f", c.s, c.d, got, c.p)
		}
	}
	perm := kronPermutation(10, 3)
	sorted := slices.Clone(perm)
	slices.Sort(sorted)
	for i, v := range sorted {
		if v != uint32(i) {
			t.Fatalf("the permutation misses %d", i)
		}
	}
	if slices.IsSorted(perm) {
		t.Fatal("the permutation is the identity")
	}
}
