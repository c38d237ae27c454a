package functions

import (
	"math"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// CmpTotalFloat orders floats with NaN after every other number.
func CmpTotalFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// OrderRank places each kind of value in Cypher's global sort order:
// maps, nodes, relationships, lists, paths, temporal values (datetimes,
// local datetimes, dates, times, local times, durations), strings,
// booleans, numbers, then null.
func OrderRank(v vector.Value) int {
	if r := TemporalRank(v); r >= 0 {
		return 5 + r
	}
	switch v.(type) {
	case map[string]vector.Value:
		return 0
	case vector.NodeRef:
		return 1
	case vector.RelRef:
		return 2
	case []vector.Value:
		return 3
	case vector.Path:
		return 4
	case string:
		return 11
	case bool:
		return 12
	case int64, float64:
		return 13
	case nil:
		return 15
	}
	return 14
}

// OrderTotal is a total order over generic values, for ORDER BY.
func OrderTotal(a, b vector.Value) int {
	ra, rb := OrderRank(a), OrderRank(b)
	if ra != rb {
		return CmpOrdered(int64(ra), int64(rb))
	}
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return CmpOrdered(x, y)
		case float64:
			return CmpTotalFloat(float64(x), y)
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return CmpTotalFloat(x, float64(y))
		case float64:
			return CmpTotalFloat(x, y)
		}
	case string:
		return CmpOrdered(x, b.(string))
	case bool:
		return CmpBool(x, b.(bool))
	case vector.NodeRef:
		return CmpOrdered(int64(x), int64(b.(vector.NodeRef)))
	case vector.RelRef:
		return CmpOrdered(int64(x), int64(b.(vector.RelRef)))
	case []vector.Value:
		y := b.([]vector.Value)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := OrderTotal(x[i], y[i]); c != 0 {
				return c
			}
		}
		return CmpOrdered(int64(len(x)), int64(len(y)))
	}
	if temporal.Is(a) {
		return TemporalTotal(a, b)
	}
	return 0
}
