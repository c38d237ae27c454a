package vectorindex

import "math"

// The graph's distances: FLOAT32 loops, eight elements a step into four
// accumulators (the adds of one accumulator depend on each other; four
// chains keep the FPU busy), the re-slices to eight elements letting the
// compiler drop the bounds checks. Lower is closer. Scores handed to the
// caller are recomputed in FLOAT64 (metric.go); these only rank.

func dot32(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		s0 += x[0]*y[0] + x[4]*y[4]
		s1 += x[1]*y[1] + x[5]*y[5]
		s2 += x[2]*y[2] + x[6]*y[6]
		s3 += x[3]*y[3] + x[7]*y[7]
	}
	for ; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func l2sq32(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= n; i += 8 {
		x := a[i : i+8 : i+8]
		y := b[i : i+8 : i+8]
		d0, d1, d2, d3 := x[0]-y[0], x[1]-y[1], x[2]-y[2], x[3]-y[3]
		d4, d5, d6, d7 := x[4]-y[4], x[5]-y[5], x[6]-y[6], x[7]-y[7]
		s0 += d0*d0 + d4*d4
		s1 += d1*d1 + d5*d5
		s2 += d2*d2 + d6*d6
		s3 += d3*d3 + d7*d7
	}
	for ; i < n; i++ {
		d := a[i] - b[i]
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// probe is a vector the graph measures its nodes against: a query or
// an inserted node's vector, with the inverse of its length.
type probe struct {
	v   []float32
	inv float32
}

// dist is the graph's distance from p to slot n: one minus the cosine,
// the squared euclidean distance (same order as the distance), or the
// negated inner product. Vectors are kept as given (Index.Vector returns
// them unchanged); cosine multiplies the inner product by the two
// inverse lengths, computed once per vector.
func (g *graph) dist(p probe, n int32) float32 {
	switch g.metric {
	case Cosine:
		return 1 - dot32(p.v, g.vec(n))*p.inv*g.inv[n]
	case Euclidean:
		return l2sq32(p.v, g.vec(n))
	}
	return -dot32(p.v, g.vec(n))
}

// invNorm is 1/|v| (+Inf for a zero vector, which cosine refuses).
func invNorm(v []float32) float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return float32(1 / math.Sqrt(s))
}
