package vector

import "math"

// Similarity kernels over dense float vectors: typed loops with no
// interface call, shared by the vector.similarity.* functions and the
// exact and HNSW searches of engine/index/vector. Scores follow Neo4j's
// vector functions: cosine maps cos θ into [0, 1] as (1 + cos θ) / 2,
// euclidean maps the distance d to 1 / (1 + d²); higher is closer.

// Float is the element type of a dense vector.
type Float interface{ ~float32 | ~float64 }

// Dot is the inner product of a and b, which have the same length.
// Four accumulators break the add dependency chain; the sums stay in
// float64 so that FLOAT32 vectors of a few thousand dimensions do not
// lose the low digits.
func Dot[T Float](a, b []T) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += float64(a[i]) * float64(b[i])
		s1 += float64(a[i+1]) * float64(b[i+1])
		s2 += float64(a[i+2]) * float64(b[i+2])
		s3 += float64(a[i+3]) * float64(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i]) * float64(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// SquaredL2 is the squared euclidean distance between a and b, which
// have the same length.
func SquaredL2[T Float](a, b []T) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		d0 := float64(a[i]) - float64(b[i])
		d1 := float64(a[i+1]) - float64(b[i+1])
		d2 := float64(a[i+2]) - float64(b[i+2])
		d3 := float64(a[i+3]) - float64(b[i+3])
		s0 += d0 * d0
		s1 += d1 * d1
		s2 += d2 * d2
		s3 += d3 * d3
	}
	for ; i < len(a); i++ {
		d := float64(a[i]) - float64(b[i])
		s0 += d * d
	}
	return (s0 + s1) + (s2 + s3)
}

// Norm is the euclidean length of a.
func Norm[T Float](a []T) float64 { return math.Sqrt(Dot(a, a)) }

// CosineScore is Neo4j's cosine similarity of a and b in [0, 1]; ok is
// false when either vector has length zero (the cosine is undefined).
// normA and normB are the vectors' norms, which a search computes once.
func CosineScore[T Float](a, b []T, normA, normB float64) (score float64, ok bool) {
	if normA == 0 || normB == 0 {
		return 0, false
	}
	c := Dot(a, b) / (normA * normB)
	c = max(-1, min(1, c)) // rounding can step just outside [-1, 1]
	return (1 + c) / 2, true
}

// CosineScoreQ is CosineScore of a query a of norm normA against b, with
// b's norm computed in the same pass as the dot product (DotNorm). The
// function vector.similarity.cosine and the searches both score with it,
// so a search's scores equal the function's bit for bit.
func CosineScoreQ[T Float](a, b []T, normA float64) (score float64, ok bool) {
	dot, bb := DotNorm(a, b)
	if normA == 0 || bb == 0 {
		return 0, false
	}
	c := dot / (normA * math.Sqrt(bb))
	c = max(-1, min(1, c))
	return (1 + c) / 2, true
}

// EuclideanScore is Neo4j's euclidean similarity of a and b: 1 / (1 + d²).
func EuclideanScore[T Float](a, b []T) float64 {
	return 1 / (1 + SquaredL2(a, b))
}

// DotNorm is Dot(a, b) and Dot(b, b) in one pass over b: the cosine of a
// fixed query against many vectors reads each vector once.
func DotNorm[T Float](a, b []T) (dot, bb float64) {
	b = b[:len(a)]
	var d0, d1, n0, n1 float64
	i := 0
	for ; i+2 <= len(a); i += 2 {
		x0, x1 := float64(b[i]), float64(b[i+1])
		d0 += float64(a[i]) * x0
		d1 += float64(a[i+1]) * x1
		n0 += x0 * x0
		n1 += x1 * x1
	}
	for ; i < len(a); i++ {
		x := float64(b[i])
		d0 += float64(a[i]) * x
		n0 += x * x
	}
	return d0 + d1, n0 + n1
}
