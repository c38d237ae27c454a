package vectorindex

import (
	"strings"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// Metric is how two vectors are compared. Every metric's score is
// "higher is closer", so one top-k heap serves them all.
type Metric uint8

// The metrics. Cosine and Euclidean score as Neo4j's functions do
// (vector.similarity.cosine, vector.similarity.euclidean); Dot is the
// raw inner product, for vectors normalised beforehand.
const (
	Cosine Metric = iota
	Euclidean
	Dot
)

var metricNames = [...]string{Cosine: "cosine", Euclidean: "euclidean", Dot: "dot"}

func (m Metric) String() string { return metricNames[m] }

// ParseMetric reads a similarity option's value (case-insensitive).
func ParseMetric(s string) (Metric, error) {
	for m, name := range metricNames {
		if strings.EqualFold(s, name) {
			return Metric(m), nil
		}
	}
	return 0, errs.DataCode(errs.CodeInvalidParam, "unknown vector similarity %q: use 'cosine', 'euclidean' or 'dot'", s)
}

// score compares the query q (of norm qn) with v; ok is false when the
// score is undefined (the cosine of a zero vector), and the candidate is
// then skipped.
func score[T vector.Float](m Metric, q, v []T, qn float64) (float64, bool) {
	switch m {
	case Cosine:
		return vector.CosineScoreQ(q, v, qn)
	case Euclidean:
		return vector.EuclideanScore(q, v), true
	}
	return vector.Dot(q, v), true
}
