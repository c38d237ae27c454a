package plan

import "sort"

// AggregateNames lists the aggregate functions the binder accepts, by
// lower-case name, sorted (SHOW FUNCTIONS reads it).
func AggregateNames() []string {
	names := make([]string, 0, len(aggregateFuncs))
	for n := range aggregateFuncs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
