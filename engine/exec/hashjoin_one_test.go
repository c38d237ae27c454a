package exec

import (
	"math"
	"testing"

	"github.com/quiverdb/quiver/engine/storage"
	"github.com/quiverdb/quiver/vector"
)

// The one-key test answers, wherever it answers, as comparing the index
// keys (storage.AppendIndexKey) does: for keys of every kind against
// INTEGER and STRING rows around them.
func TestOneKeyTestMatchesIndexKeys(t *testing.T) {
	ints := []int64{0, 1, -1, 2, 30, 1 << 53, 1<<53 + 1, -(1 << 53) - 1, math.MaxInt64, math.MinInt64}
	strs := []string{"", "a", "A", "a\x00", "1", "30"}
	keys := []vector.Value{true, false, []vector.Value{int64(1)}, math.NaN(), math.Inf(1), math.Inf(-1), 0.5, math.Copysign(0, -1), 1e300,
		float64(1 << 53), float64(1<<53) * 2, float64(math.MaxInt64)}
	for _, x := range ints {
		keys = append(keys, x, float64(x))
	}
	for _, s := range strs {
		keys = append(keys, s)
	}
	iv := vector.New(vector.Int64, len(ints))
	copy(iv.I64, ints)
	sv := vector.New(vector.String, len(strs))
	copy(sv.Str, strs)
	for _, k := range keys {
		want, ok := storage.AppendIndexKey(nil, k)
		if !ok {
			t.Fatalf("%v has no key", k)
		}
		test := oneKeyTestOf(k)
		known := 0
		for _, v := range []*vector.Vector{iv, sv} {
			for r := range len(v.I64) + len(v.Str) {
				eq, ok := test.equal(v, r)
				if !ok {
					continue
				}
				known++
				got, _ := storage.AppendIndexKey(nil, v.Get(r))
				if eq != (string(got) == string(want)) {
					t.Errorf("key %v (%T), row %v: equal %v, keys equal %v", k, k, v.Get(r), eq, !eq)
				}
			}
		}
		if known == 0 {
			t.Logf("key %v (%T): never known", k, k)
		}
	}
}
