package vector

import (
	"math"
	"testing"
)

func TestSimilarityKernels(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{5, 4, 3, 2, 1}
	if got := Dot(a, b); got != 35 {
		t.Fatalf("Dot = %v, want 35", got)
	}
	if got := SquaredL2(a, b); got != 40 {
		t.Fatalf("SquaredL2 = %v, want 40", got)
	}
	if got := EuclideanScore(a, b); got != 1.0/41 {
		t.Fatalf("EuclideanScore = %v, want 1/41", got)
	}
	s, ok := CosineScore(a, b, Norm(a), Norm(b))
	if want := (1 + 35.0/55) / 2; !ok || math.Abs(s-want) > 1e-15 {
		t.Fatalf("CosineScore = %v, %v; want %v", s, ok, want)
	}
	// Opposite vectors score 0, equal ones 1, orthogonal ones 0.5.
	x32 := []float32{1, 0}
	for _, c := range []struct {
		y    []float32
		want float64
	}{{[]float32{-2, 0}, 0}, {[]float32{3, 0}, 1}, {[]float32{0, 1}, 0.5}} {
		if s, ok := CosineScore(x32, c.y, Norm(x32), Norm(c.y)); !ok || math.Abs(s-c.want) > 1e-12 {
			t.Fatalf("CosineScore(%v, %v) = %v, want %v", x32, c.y, s, c.want)
		}
	}
	if _, ok := CosineScore(x32, []float32{0, 0}, 1, 0); ok {
		t.Fatal("a zero vector has a cosine")
	}
}

func TestDotNorm(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{5, 4, 3, 2, 1}
	d, n := DotNorm(a, b)
	if d != 35 || n != 55 {
		t.Fatalf("DotNorm = %v, %v; want 35, 55", d, n)
	}
}
