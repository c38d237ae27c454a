package timeseries

import (
	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/vector"
)

// rows turns the bucket states into the result: one row per bucket in
// ascending order, the empty ones as the fill option says (none: left
// out; null: count 0, the rest null; zero: 0 everywhere, 0.0 for avg;
// previous: the last non-empty bucket's sum, avg, min and max, null
// before the first; linear: avg interpolated between the non-empty
// buckets either side, null outside them, the rest null). Aggregates not
// asked for are null.
func (a *scan) rows() [][]vector.Value {
	o := a.o
	out := make([][]vector.Value, 0, len(a.states))
	var prev []vector.Value // the last non-empty bucket's row
	var empty []bool        // by row, for linear
	for i := range a.states {
		s := &a.states[i]
		start, err := o.bucket.Start(a.k0 + int64(i))
		if err != nil {
			continue // a bucket start outside the temporal range holds nothing
		}
		b := o.bucketValue(start)
		if s.rows > 0 {
			row := s.row(b, o.aggregates, o.value != "")
			prev = row
			out = append(out, row)
			empty = append(empty, false)
			continue
		}
		var row []vector.Value
		switch o.fill {
		case fillNone:
			continue
		case fillNull, fillLinear:
			row = []vector.Value{b, int64(0), nil, nil, nil, nil}
		case fillZero:
			row = []vector.Value{b, int64(0), int64(0), 0.0, int64(0), int64(0)}
		case fillPrevious:
			row = []vector.Value{b, int64(0), nil, nil, nil, nil}
			if prev != nil {
				copy(row[2:], prev[2:])
			}
		}
		mask(row, o.aggregates)
		out = append(out, row)
		empty = append(empty, true)
	}
	if o.fill == fillLinear && o.aggregates&aggAvg != 0 {
		interpolate(out, empty)
	}
	return out
}

// row is a non-empty bucket's result.
// A bucket whose elements have no value has count 0 and sum 0, as
// count() and sum() over no values are.
func (s *state) row(b vector.Value, aggs int, values bool) []vector.Value {
	row := []vector.Value{b, s.count, nil, nil, nil, nil}
	if values {
		row[2] = int64(0)
	}
	if n := s.nInt + s.nFlt; n > 0 {
		if s.float {
			row[2] = s.fsum
		} else {
			row[2] = s.isum
		}
		if s.float {
			row[3] = s.fsum / float64(n)
		} else {
			row[3] = float64(s.isum) / float64(n)
		}
		row[4], row[5] = s.extremes()
	}
	mask(row, aggs)
	return row
}

// extremes are min and max over both numeric types, compared as numbers
// (NaN the greatest); the INTEGER on a tie, where min() and max() keep
// whichever they met first.
func (s *state) extremes() (lo, hi vector.Value) {
	switch {
	case s.nFlt == 0:
		return s.minI, s.maxI
	case s.nInt == 0:
		return s.minF, s.maxF
	}
	lo, hi = s.minI, s.maxI
	if functions.CmpTotalFloat(s.minF, float64(s.minI)) < 0 {
		lo = s.minF
	}
	if functions.CmpTotalFloat(s.maxF, float64(s.maxI)) > 0 {
		hi = s.maxF
	}
	return lo, hi
}

// mask nulls the aggregates the call did not ask for.
func mask(row []vector.Value, aggs int) {
	for i, bit := range [...]int{aggCount, aggSum, aggAvg, aggMin, aggMax} {
		if aggs&bit == 0 {
			row[i+1] = nil
		}
	}
}

// interpolate fills the avg of the empty rows that lie between two
// non-empty ones, linearly by bucket position.
func interpolate(rows [][]vector.Value, empty []bool) {
	last := -1
	for i, r := range rows {
		if empty[i] || r[3] == nil {
			continue
		}
		if last >= 0 && i-last > 1 {
			lo, hi := rows[last][3].(float64), r[3].(float64)
			for j := last + 1; j < i; j++ {
				if !empty[j] {
					continue // a bucket of elements without values: avg stays null
				}
				rows[j][3] = lo + (hi-lo)*float64(j-last)/float64(i-last)
			}
		}
		last = i
	}
}
