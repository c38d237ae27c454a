package bench

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	vectorindex "github.com/quiverdb/quiver/engine/index/vector"
)

func TestGenerateVectorsDeterministic(t *testing.T) {
	a := GenerateVectors(VectorSetConfig(3000, 32, 11), 10)
	b := GenerateVectors(VectorSetConfig(3000, 32, 11), 10)
	if !slices.Equal(a.Vecs, b.Vecs) || !slices.Equal(a.Queries, b.Queries) {
		t.Fatal("one seed gave two sets")
	}
	c := GenerateVectors(VectorSetConfig(3000, 32, 12), 10)
	if slices.Equal(a.Vecs, c.Vecs) {
		t.Fatal("two seeds gave one set")
	}
	if len(a.Vecs) != 3000*32 || len(a.Queries) != 10*32 {
		t.Fatalf("%d values, %d query values", len(a.Vecs), len(a.Queries))
	}
}

// The set is clustered: a query's nearest neighbours score far above a
// random vector's, which uniform noise would not give.
func TestVectorSetClustered(t *testing.T) {
	s := GenerateVectors(VectorSetConfig(4000, 32, 3), 20)
	truth, err := GroundTruth(context.Background(), s, 20, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunQuiverHNSW(s, vectorindex.Config{Dim: 32, Metric: vectorindex.Cosine}, truth, 10, []int{16, 64})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if res.Points[1].Recall < 0.95 {
		t.Fatalf("recall@10 at ef 64: %.3f", res.Points[1].Recall)
	}
	col := vectorColumn(s)
	hits, _ := vectorindex.Exact(context.Background(), col, s.Query(0), 4000, vectorindex.Cosine, vectorindex.Options{Workers: 1})
	if best, median := hits[0].Score, hits[len(hits)/2].Score; best-median < 0.1 {
		t.Fatalf("best score %.3f, median %.3f: no neighbourhoods", best, median)
	}
}

// TestKuzuVectorRunner runs the Kùzu side on a small set when bench/kuzu
// is npm-installed (make bench does it), and is skipped otherwise.
func TestKuzuVectorRunner(t *testing.T) {
	if _, err := os.Stat("kuzu/node_modules/kuzu"); err != nil {
		t.Skip("bench/kuzu is not npm-installed")
	}
	s := GenerateVectors(VectorSetConfig(2000, 16, 5), 20)
	truth, err := GroundTruth(context.Background(), s, 20, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ids, emb, err := s.WriteVectorNPY(dir)
	if err != nil {
		t.Fatal(err)
	}
	k, err := StartKuzu("kuzu")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	res, err := k.Vector(filepath.Join(dir, "db"), []string{ids, emb}, s, map[string]any{"efc": 100}, truth, 10, []int{64})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res)
	if len(res.Points) != 1 || res.Points[0].Recall < 0.8 || res.Points[0].QPS <= 0 {
		t.Fatalf("Kùzu's vector index: %+v", res)
	}
}

// The .npy files hold NumPy's version 1.0 layout: magic, header length,
// a dict padded to 64 bytes, then the values little-endian.
func TestWriteVectorNPY(t *testing.T) {
	s := GenerateVectors(VectorSetConfig(3, 2, 1), 1)
	ids, emb, err := s.WriteVectorNPY(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, dict string
		values     int
	}{
		{ids, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 3 * 8},
		{emb, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 3 * 2 * 4},
	} {
		b, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if string(b[:8]) != "\x93NUMPY\x01\x00" {
			t.Fatalf("%s: magic %q", c.path, b[:8])
		}
		hl := int(binary.LittleEndian.Uint16(b[8:10]))
		if (10+hl)%64 != 0 || b[10+hl-1] != '\n' || strings.TrimRight(string(b[10:10+hl]), " \n") != c.dict {
			t.Fatalf("%s: header %q", c.path, b[10:10+hl])
		}
		if len(b)-10-hl != c.values {
			t.Fatalf("%s: %d bytes of values, want %d", c.path, len(b)-10-hl, c.values)
		}
	}
	b, _ := os.ReadFile(emb)
	data := b[len(b)-3*2*4:]
	if got := math.Float32frombits(binary.LittleEndian.Uint32(data[4*4:])); got != s.Vector(2)[0] {
		t.Errorf("vector 2's first element %v, want %v", got, s.Vector(2)[0])
	}
}
