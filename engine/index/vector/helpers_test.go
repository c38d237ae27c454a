package vectorindex

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/quiverdb/quiver/vector"
)

// clustered returns n vectors of dim FLOAT32s around c centres (normal
// noise of deviation 0.1 around centres uniform in [-1, 1]), ids 0..n-1,
// from a fixed seed: neighbourhoods like embeddings have, where uniform
// noise has none. bench/vecgen.go is the same shape at benchmark scale.
func clustered(n, dim, c int, seed uint64) *Flat[float32] {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	centres := make([]float32, c*dim)
	for i := range centres {
		centres[i] = float32(r.Float64()*2 - 1)
	}
	f := &Flat[float32]{D: dim, IDs: make([]uint64, n), Vecs: make([]float32, n*dim)}
	for i := range n {
		f.IDs[i] = uint64(i)
		ce := centres[r.IntN(c)*dim:][:dim]
		for j := range dim {
			f.Vecs[i*dim+j] = ce[j] + float32(r.NormFloat64()*0.1)
		}
	}
	return f
}

// naive scores every vector and sorts: the reference of the searches.
func naive[T vector.Float](f *Flat[T], q []T, k int, m Metric, accept func(uint64) bool) []Hit {
	var all []Hit
	qn := vector.Norm(q)
	for i, id := range f.IDs {
		if accept != nil && !accept(id) {
			continue
		}
		if s, ok := score(m, q, f.Vector(i), qn); ok {
			all = append(all, Hit{ID: id, Score: s})
		}
	}
	sort.Slice(all, func(i, j int) bool { return better(all[i], all[j]) })
	return all[:min(k, len(all))]
}

// recall is the share of want's ids that got holds.
func recall(got, want []Hit) float64 {
	in := map[uint64]bool{}
	for _, h := range got {
		in[h.ID] = true
	}
	n := 0
	for _, h := range want {
		if in[h.ID] {
			n++
		}
	}
	return float64(n) / float64(len(want))
}

// benchShaped is bench.GenerateVectors' shape at test scale: c clusters
// with centres uniform in [-1, 1]^dim, each spanning a random subspace
// of rank 16 (spread 0.3) plus isotropic noise (0.02): the low intrinsic
// dimension of real embeddings, where clustered() is isotropic.
func benchShaped(n, dim, c int, seed uint64) *Flat[float32] {
	const rank = 16
	r := rand.New(rand.NewPCG(seed, 0x7665637473))
	centres := make([]float32, c*dim)
	for i := range centres {
		centres[i] = float32(r.Float64()*2 - 1)
	}
	basis := make([]float32, c*rank*dim)
	scale := 1 / math.Sqrt(float64(dim))
	for i := range basis {
		basis[i] = float32(r.NormFloat64() * scale)
	}
	f := &Flat[float32]{D: dim, IDs: make([]uint64, n), Vecs: make([]float32, n*dim)}
	for i := range n {
		f.IDs[i] = uint64(i)
		ci := r.IntN(c)
		dst := f.Vecs[i*dim : (i+1)*dim]
		copy(dst, centres[ci*dim:(ci+1)*dim])
		for j := range rank {
			z := float32(r.NormFloat64() * 0.3)
			row := basis[(ci*rank+j)*dim:][:dim]
			for d := range dst {
				dst[d] += z * row[d]
			}
		}
		for d := range dst {
			dst[d] += float32(r.NormFloat64() * 0.02)
		}
	}
	return f
}
