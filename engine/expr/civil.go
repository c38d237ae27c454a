package expr

import "github.com/quiverdb/quiver/temporal"

// The civil calendar for the date kernels (temporal_kernels.go). The
// temporal package's conversions floor their divisions for any day
// number, which costs two hardware divisions a call (FloorDiv is not
// inlined, so its divisor is no constant). For a date from year 0 on
// (day -719468) the same arithmetic runs on unsigned integers, where
// every division is by a constant and compiles to a multiplication: the
// rest of the range takes temporal's own functions.
//
// BenchmarkExpr/temporal-year.loop (temporal.CivilFromDays a row over
// an []int64): 8.5 to 14 ns a row on a shared machine.

// civilEpoch is temporal's day number of 0000-03-01, the first day of
// the algorithm's first era.
const civilEpoch = 719468

// civilSpan bounds the day numbers (from civilEpoch) taken here: far
// past any year a DATE holds, and small enough that no product below
// overflows.
const civilSpan = 1 << 40

// civil is temporal.CivilFromDays, by Neri and Schneider's Euclidean
// affine functions ("Euclidean affine functions and their application
// to calendar algorithms", 2022): half the multiplications of the
// classic algorithm temporal uses, in a shorter chain.
func civil(days int64) (y, m, d int64) {
	z := uint64(days + civilEpoch)
	if days < -civilEpoch || z >= civilSpan {
		return temporal.CivilFromDays(days)
	}
	n1 := 4*z + 3
	c := n1 / 146097      // the century
	nc := n1 % 146097 / 4 // the day of the century
	p2 := 2939745 * (4*nc + 3)
	ny := p2 & 0xffffffff / 2939745 / 4 // the day of the year from March
	n3 := 2141*ny + 197913
	y = int64(100*c + p2>>32)
	m = int64(n3 >> 16)
	d = int64(n3&0xffff/2141) + 1
	if ny >= 306 { // January and February end the year that began in March
		y++
		m -= 12
	}
	return y, m, d
}

// civilYear is civil's year alone: the day of the year from March is
// 306 or more (January or February, of the next year) exactly when the
// low word of the product is at least 306 × 4 × 2939745.
func civilYear(days int64) int64 {
	z := uint64(days + civilEpoch)
	if days < -civilEpoch || z >= civilSpan {
		y, _, _ := temporal.CivilFromDays(days)
		return y
	}
	n1 := 4*z + 3
	p2 := 2939745 * (n1%146097/4*4 + 3)
	y := 100*(n1/146097) + p2>>32
	if p2&0xffffffff >= 306*4*2939745 {
		y++
	}
	return int64(y)
}

// daysOf is temporal.DaysFromCivil for a valid month and day.
func daysOf(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	if y < 0 || y >= civilSpan/366 {
		if m <= 2 {
			y++
		}
		return temporal.DaysFromCivil(y, m, d)
	}
	uy := uint64(y)
	era := uy / 400
	yoe := uy - era*400
	mp := uint64(m+9) % 12
	doy := (153*mp+2)/5 + uint64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097+doe) - civilEpoch
}

// civilField is field key of a date given as its day number, by civil,
// for the fields it gives; nil for another key.
func civilField(key string) func(temporal.Date) int64 {
	switch key {
	case "year":
		return func(x temporal.Date) int64 { return civilYear(x.Days) }
	case "month":
		return func(x temporal.Date) int64 { _, m, _ := civil(x.Days); return m }
	case "day":
		return func(x temporal.Date) int64 { _, _, d := civil(x.Days); return d }
	case "quarter":
		return func(x temporal.Date) int64 { _, m, _ := civil(x.Days); return (m-1)/3 + 1 }
	}
	return nil
}

// truncateDays is functions.TruncateDate's date units by civil, for the
// units it gives: unit's start of the date given as its day number; nil
// for another unit.
func truncateDays(unit string) func(days int64) int64 {
	switch unit {
	case "year":
		return func(x int64) int64 { y, _, _ := civil(x); return daysOf(y, 1, 1) }
	case "quarter":
		return func(x int64) int64 { y, m, _ := civil(x); return daysOf(y, (m-1)/3*3+1, 1) }
	case "month":
		return func(x int64) int64 { _, _, d := civil(x); return x - d + 1 }
	case "week":
		return func(x int64) int64 { return x - temporal.DayOfWeek(x) + 1 }
	case "day":
		return func(x int64) int64 { return x }
	}
	return nil
}

// truncateSpacing is the least number of days between two starts of
// unit, for the truncations' boxes (dateBoxes); 1 for another unit.
func truncateSpacing(unit string) uint64 {
	switch unit {
	case "week":
		return 7
	case "month":
		return 28
	case "quarter":
		return 90
	case "year":
		return 365
	case "decade":
		return 3652
	case "century":
		return 36524
	case "millennium":
		return 365242
	}
	return 1
}
