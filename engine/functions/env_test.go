package functions

import (
	"time"

	"github.com/quiverdb/quiver/vector"
)

// graphless is an Env without a graph, for kernels of values alone: its
// clock is fixed and it holds no nodes or relationships.
type graphless struct{ now time.Time }

func (g *graphless) Now() time.Time {
	if g.now.IsZero() {
		g.now = time.Date(2015, 7, 21, 21, 40, 32, 0, time.UTC)
	}
	return g.now
}
func (*graphless) Interrupted() error                        { return nil }
func (*graphless) Reserve(int64) error                       { return nil }
func (*graphless) NodeLabels(uint64) ([]string, error)       { return nil, nil }
func (*graphless) Rel(uint64) (string, uint64, uint64, bool) { return "", 0, 0, false }
func (*graphless) Degree(uint64, string, bool) int64         { return 0 }
func (*graphless) Properties(vector.Value, func(string, vector.Value)) (bool, error) {
	return false, nil
}
