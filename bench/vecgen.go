package bench

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
)

// VectorSet is a deterministic set of clustered embeddings for the
// vector search benchmark (bench/RESULTS-vector.md): N vectors of Dim
// FLOAT32s, vector i at Vecs[i*Dim:(i+1)*Dim], and Queries drawn from
// the same distribution but not in the set.
//
// Shape: Clusters centres uniform in [-1, 1]^Dim; each cluster spans a
// random subspace of Rank directions (entries N(0, 1/Dim), so a
// direction has length ≈ 1), and a vector is its centre plus a
// N(0, Spread²) combination of those directions plus N(0, Noise²)
// isotropic noise. Real text and image embeddings have an intrinsic
// dimension of a few tens whatever their width; isotropic Gaussian
// clusters (Rank = Dim) would make every neighbour nearly equidistant, a
// harder and less realistic problem than any embedding, and uniform
// noise has no neighbourhoods at all.
type VectorSet struct {
	N, Dim, Clusters, Rank int
	Spread, Noise          float64
	Seed                   uint64
	Vecs                   []float32
	Queries                []float32
}

// VectorSetConfig is the default shape at a size: 1M × 128 is the
// benchmark's, smaller ones are for tests.
func VectorSetConfig(n, dim int, seed uint64) VectorSet {
	return VectorSet{N: n, Dim: dim, Clusters: max(1, n/1000), Rank: min(dim, 16), Spread: 0.3, Noise: 0.02, Seed: seed}
}

// GenerateVectors fills s.Vecs and nq queries; the same configuration
// always gives the same vectors (PCG streams from s.Seed).
func GenerateVectors(s VectorSet, nq int) *VectorSet {
	r := rand.New(rand.NewPCG(s.Seed, 0x7665637473)) // "vects"
	centres := make([]float32, s.Clusters*s.Dim)
	for i := range centres {
		centres[i] = float32(r.Float64()*2 - 1)
	}
	basis := make([]float32, s.Clusters*s.Rank*s.Dim)
	scale := 1 / math.Sqrt(float64(s.Dim))
	for i := range basis {
		basis[i] = float32(r.NormFloat64() * scale)
	}
	draw := func(r *rand.Rand, dst []float32, z []float64) {
		c := r.IntN(s.Clusters)
		copy(dst, centres[c*s.Dim:(c+1)*s.Dim])
		for j := range z {
			z[j] = r.NormFloat64() * s.Spread
		}
		b := basis[c*s.Rank*s.Dim:]
		for j, zj := range z {
			row := b[j*s.Dim : (j+1)*s.Dim]
			for d := range dst {
				dst[d] += float32(zj) * row[d]
			}
		}
		for d := range dst {
			dst[d] += float32(r.NormFloat64() * s.Noise)
		}
	}
	z := make([]float64, s.Rank)
	s.Vecs = make([]float32, s.N*s.Dim)
	for i := range s.N {
		draw(r, s.Vecs[i*s.Dim:(i+1)*s.Dim], z)
	}
	q := rand.New(rand.NewPCG(s.Seed, 0x7175657279)) // "query": its own stream
	s.Queries = make([]float32, nq*s.Dim)
	for i := range nq {
		draw(q, s.Queries[i*s.Dim:(i+1)*s.Dim], z)
	}
	return &s
}

// Vector is vector i.
func (s *VectorSet) Vector(i int) []float32 { return s.Vecs[i*s.Dim : (i+1)*s.Dim : (i+1)*s.Dim] }

// Query is query i.
func (s *VectorSet) Query(i int) []float32 { return s.Queries[i*s.Dim : (i+1)*s.Dim : (i+1)*s.Dim] }

// WriteVectorNPY writes the set as two NumPy .npy files in dir, the
// columns Kùzu's COPY … BY COLUMN loads: ids.npy (int64, shape (N,)) and
// embedding.npy (float32, shape (N, Dim), row-major). Binary columns load
// in seconds where a CSV of list literals took Kùzu 20 minutes at 300k.
func (s *VectorSet) WriteVectorNPY(dir string) (ids, embedding string, err error) {
	ids, embedding = filepath.Join(dir, "ids.npy"), filepath.Join(dir, "embedding.npy")
	err = writeFile(ids, func(w *bufio.Writer) {
		writeNPYHeader(w, "<i8", fmt.Sprintf("(%d,)", s.N))
		var b [8]byte
		for i := range s.N {
			binary.LittleEndian.PutUint64(b[:], uint64(i))
			w.Write(b[:])
		}
	})
	if err != nil {
		return "", "", err
	}
	err = writeFile(embedding, func(w *bufio.Writer) {
		writeNPYHeader(w, "<f4", fmt.Sprintf("(%d, %d)", s.N, s.Dim))
		var b [4]byte
		for _, x := range s.Vecs[:s.N*s.Dim] {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
			w.Write(b[:])
		}
	})
	return ids, embedding, err
}

// writeNPYHeader writes a version 1.0 .npy header: the magic, the
// header's length, and a Python dict literal padded with spaces to a
// multiple of 64 bytes, ending in a newline.
func writeNPYHeader(w *bufio.Writer, descr, shape string) {
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape)
	n := 10 + len(dict) + 1
	dict += strings.Repeat(" ", (64-n%64)%64) + "\n"
	w.WriteString("\x93NUMPY\x01\x00")
	w.WriteByte(byte(len(dict)))
	w.WriteByte(byte(len(dict) >> 8))
	w.WriteString(dict)
}
