package functions

import (
	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// duration.between(a, b) and its variants inMonths, inDays, inSeconds:
// the duration that takes a to b. Months and days count whole calendar
// units on the wall clock (as java.time's until does); the rest is exact
// elapsed time. A value without a date borrows the other's date, an
// unzoned value the other's zone, so date('2017-10-29') and a Stockholm
// datetime at 04:00 that day are 5 hours apart across the DST change.

// point is one operand of duration.between.
type point struct {
	hasDate bool
	local   temporal.LocalDateTime
	zoned   bool
	offset  int32
	zone    string
}

func toPoint(v vector.Value) (point, bool) {
	switch x := v.(type) {
	case temporal.Date:
		return point{hasDate: true, local: temporal.MakeLocalDateTime(x, 0)}, true
	case temporal.LocalTime:
		return point{local: temporal.LocalDateTime{Sec: x.Nanos / temporal.NanosPerSecond, Nanos: int32(x.Nanos % temporal.NanosPerSecond)}}, true
	case temporal.Time:
		return point{local: temporal.LocalDateTime{Sec: x.Nanos / temporal.NanosPerSecond, Nanos: int32(x.Nanos % temporal.NanosPerSecond)}, zoned: true, offset: x.Offset}, true
	case temporal.LocalDateTime:
		return point{hasDate: true, local: x}, true
	case temporal.DateTime:
		return point{hasDate: true, local: x.Local(), zoned: true, offset: x.Offset, zone: x.Zone}, true
	}
	return point{}, false
}

// instant resolves a zoned point to UTC seconds and nanoseconds.
func (p point) instant() (temporal.LocalDateTime, error) {
	if p.zone != "" {
		dt, err := temporal.InZone(p.local, p.zone)
		if err != nil {
			return temporal.LocalDateTime{}, TemporalErr(err)
		}
		return temporal.LocalDateTime{Sec: dt.Sec, Nanos: dt.Nanos}, nil
	}
	return temporal.LocalDateTime{Sec: p.local.Sec - int64(p.offset), Nanos: p.local.Nanos}, nil
}

// betweenUnit selects which parts duration.between computes.
type betweenUnit uint8

const (
	betweenAll betweenUnit = iota
	betweenMonths
	betweenDays
	betweenSeconds
)

func durationBetween(u betweenUnit, a, b vector.Value) (vector.Value, error) {
	if a == nil || b == nil {
		return nil, nil
	}
	pa, okA := toPoint(a)
	pb, okB := toPoint(b)
	if !okA || !okB {
		return nil, errs.Data("duration.between expects two temporal instants (not durations), got %s and %s", TypeName(a), TypeName(b))
	}
	bothDates := pa.hasDate && pb.hasDate
	switch {
	case !pa.hasDate && pb.hasDate:
		pa.local = temporal.MakeLocalDateTime(pb.local.Date(), pa.local.TimeOfDay())
	case pa.hasDate && !pb.hasDate:
		pb.local = temporal.MakeLocalDateTime(pa.local.Date(), pb.local.TimeOfDay())
	}
	switch {
	case pa.zoned && !pb.zoned:
		pb.zoned, pb.offset, pb.zone = true, pa.offset, pa.zone
	case pb.zoned && !pa.zoned:
		pa.zoned, pa.offset, pa.zone = true, pb.offset, pb.zone
	}
	// endLocal is b on a's wall clock; ia and ib are instants when zoned.
	endLocal := pb.local
	var ib temporal.LocalDateTime
	if pa.zoned {
		var err error
		if ib, err = pb.instant(); err != nil {
			return nil, err
		}
		dt, err := temporal.AtInstant(ib.Sec, ib.Nanos, pa.offset, pa.zone)
		if err != nil {
			return nil, TemporalErr(err)
		}
		endLocal = dt.Local()
	}
	var months, days int64
	mid := pa.local
	if bothDates && (u == betweenAll || u == betweenMonths) {
		months = monthsBetween(pa.local, endLocal)
		mid = temporal.MakeLocalDateTime(plusMonths(pa.local.Date(), months), pa.local.TimeOfDay())
	}
	if u == betweenMonths {
		return temporal.Duration{Months: months}, nil
	}
	if bothDates && (u == betweenAll || u == betweenDays) {
		days = daysBetween(mid, endLocal)
		mid.Sec += days * temporal.SecondsPerDay
	}
	if u == betweenDays {
		return temporal.Duration{Days: days}, nil
	}
	// The rest is elapsed time from mid to b.
	from, to := mid, endLocal
	if pa.zoned {
		var err error
		if from, err = (point{local: mid, zoned: true, offset: pa.offset, zone: pa.zone}).instant(); err != nil {
			return nil, err
		}
		to = ib
	}
	return temporal.NewDuration(months, days, to.Sec-from.Sec, int64(to.Nanos)-int64(from.Nanos)), nil
}

// monthsBetween counts whole months from a to b, truncated toward zero.
func monthsBetween(a, b temporal.LocalDateTime) int64 {
	da, db := adjustEnd(a, b)
	ya, ma, dda := temporal.CivilFromDays(da)
	yb, mb, ddb := temporal.CivilFromDays(db)
	months := (yb*12 + mb) - (ya*12 + ma)
	switch {
	case months > 0 && ddb < dda:
		months--
	case months < 0 && ddb > dda:
		months++
	}
	return months
}

// daysBetween counts whole days from a to b, truncated toward zero.
func daysBetween(a, b temporal.LocalDateTime) int64 {
	da, db := adjustEnd(a, b)
	return db - da
}

// adjustEnd returns the day numbers of a and b, b moved one day toward a
// when its time of day has not yet reached a's, so that only complete
// days count.
func adjustEnd(a, b temporal.LocalDateTime) (int64, int64) {
	da, db := a.Date().Days, b.Date().Days
	ta, tb := a.TimeOfDay(), b.TimeOfDay()
	switch {
	case db > da && tb < ta:
		db--
	case db < da && tb > ta:
		db++
	}
	return da, db
}
