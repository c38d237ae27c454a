package functions

import (
	"math"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// vector.similarity.cosine and vector.similarity.euclidean, with Neo4j's
// semantics (docs/functions.md): a null argument gives null; both
// arguments are LISTs of numbers of the same, non-zero length; the cosine
// of a zero vector is undefined and gives null. A dimension mismatch, a
// non-numeric, null or non-finite element is a 22000 error.
func init() {
	register(map[string]Func{
		"vector.similarity.cosine": {Min: 2, Max: 2, Result: vector.Float64, Args: args(ArgList),
			Doc:    "vector.similarity.cosine(a, b) — (1 + cos θ) / 2, in [0, 1]",
			Kernel: fnCosineSimilarity},
		"vector.similarity.euclidean": {Min: 2, Max: 2, Result: vector.Float64, Args: args(ArgList),
			Doc:    "vector.similarity.euclidean(a, b) — 1 / (1 + d²), in (0, 1]",
			Kernel: fnEuclideanSimilarity},
	})
}

func fnCosineSimilarity(env Env, a []vector.Value) (vector.Value, error) {
	x, y, ok, err := vectorPair(env, "vector.similarity.cosine", a)
	if !ok {
		return nil, err
	}
	s, defined := vector.CosineScoreQ(x, y, vector.Norm(x))
	if !defined {
		return nil, nil
	}
	return s, nil
}

func fnEuclideanSimilarity(env Env, a []vector.Value) (vector.Value, error) {
	x, y, ok, err := vectorPair(env, "vector.similarity.euclidean", a)
	if !ok {
		return nil, err
	}
	return vector.EuclideanScore(x, y), nil
}

// vectorPair reads both arguments as dense FLOAT vectors of one
// dimension; ok is false for a null argument (err nil) or bad input.
func vectorPair(env Env, fn string, a []vector.Value) (x, y []float64, ok bool, err error) {
	if a[0] == nil || a[1] == nil {
		return nil, nil, false, nil
	}
	if env != nil { // the two dense copies this row builds
		l0, _ := a[0].([]vector.Value)
		l1, _ := a[1].([]vector.Value)
		if err := env.Reserve(int64(8 * (len(l0) + len(l1)))); err != nil {
			return nil, nil, false, err
		}
	}
	if x, err = VectorArg(fn, a[0]); err != nil {
		return nil, nil, false, err
	}
	if y, err = VectorArg(fn, a[1]); err != nil {
		return nil, nil, false, err
	}
	if len(x) != len(y) {
		return nil, nil, false, VectorDimensionError(fn, len(x), len(y))
	}
	return x, y, true, nil
}

// VectorArg reads a non-null value as a dense vector: a non-empty LIST
// of finite INTEGERs and FLOATs. Procedures taking a query vector use it
// too, so every vector input fails alike.
func VectorArg(fn string, v vector.Value) ([]float64, error) {
	l, isList := v.([]vector.Value)
	if !isList {
		return nil, errs.Data("%s() takes a LIST of numbers as a vector, not %s", fn, TypeName(v))
	}
	if len(l) == 0 {
		return nil, errs.Data("%s() cannot take an empty vector", fn)
	}
	out := make([]float64, len(l))
	for i, e := range l {
		switch n := e.(type) {
		case float64:
			out[i] = n
		case int64:
			out[i] = float64(n)
		default:
			return nil, errs.Data("%s(): vector element %d is %s, not a number", fn, i, TypeName(e))
		}
		if math.IsNaN(out[i]) || math.IsInf(out[i], 0) {
			return nil, errs.Data("%s(): vector element %d is %v, not a finite number", fn, i, out[i])
		}
	}
	return out, nil
}

// VectorDimensionError is the error of two vectors of different
// dimensions (a query vector against an indexed or stored one, too).
func VectorDimensionError(fn string, a, b int) error {
	return errs.Data("%s(): vector dimensions differ: %d and %d", fn, a, b)
}
