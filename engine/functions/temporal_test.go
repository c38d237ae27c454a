package functions

import (
	"testing"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

func TestTemporalEqualityAndOrder(t *testing.T) {
	at := func(s string) temporal.DateTime {
		dt, err := temporal.ParseDateTime(s)
		if err != nil {
			t.Fatal(err)
		}
		return dt
	}
	a, b := at("2015-07-21T21:40:32+01:00"), at("2015-07-21T20:40:32Z")
	if eq, null := EqualValues(a, b); !eq || null {
		t.Errorf("same instant at two offsets: = gives %v %v, want true", eq, null)
	}
	if c, ok := OrderValues(a, at("2015-07-21T21:00Z")); !ok || c >= 0 {
		t.Errorf("20:40Z < 21:00Z: got %d %v", c, ok)
	}
	d1 := temporal.Date{Days: 1}
	// A date and a local date-time at its midnight are incomparable.
	if _, ok := OrderValues(d1, temporal.MakeLocalDateTime(d1, 0)); ok {
		t.Error("DATE < LOCALDATETIME should be null")
	}
	if eq, _ := EqualValues(d1, temporal.MakeLocalDateTime(d1, 0)); eq {
		t.Error("DATE = LOCALDATETIME should be false")
	}
	dur := temporal.Duration{Days: 1}
	if _, ok := OrderValues(dur, temporal.Duration{Days: 2}); ok {
		t.Error("durations have no < order")
	}
	// Global order: datetime before date before duration before string.
	vals := []vector.Value{"s", dur, d1, a, []vector.Value{}}
	for i := 1; i < len(vals); i++ {
		if OrderTotal(vals[i], vals[i-1]) >= 0 {
			t.Errorf("%v should sort before %v", vals[i], vals[i-1])
		}
	}
}

func TestTemporalArithmeticErrors(t *testing.T) {
	d := temporal.Date{Days: 0}
	for _, c := range []struct {
		op   byte
		a, b vector.Value
		code string
	}{
		{'+', d, d, errs.CodeData},
		{'*', d, int64(2), errs.CodeData},
		{'/', temporal.Duration{Days: 1}, int64(0), errs.CodeDivByZero},
		{'+', d, temporal.Duration{Months: 1 << 62}, errs.CodeDatetimeOverflow},
		{'*', temporal.Duration{Months: 1 << 60}, int64(1 << 10), errs.CodeDatetimeOverflow},
	} {
		_, err := ArithValues(c.op, c.a, c.b)
		e, ok := err.(*errs.Error)
		if !ok || e.Code != c.code {
			t.Errorf("%v %c %v: error %v, want code %s", c.a, c.op, c.b, err, c.code)
		}
	}
	// A list still concatenates with a temporal value.
	v, err := ArithValues('+', []vector.Value{int64(1)}, d)
	if err != nil || len(v.([]vector.Value)) != 2 {
		t.Errorf("[1] + date: %v %v", v, err)
	}
}

func TestTemporalPropertyAndNoPanics(t *testing.T) {
	if _, err := TemporalProperty(temporal.Date{}, "hour"); err == nil {
		t.Error("a date has no hour")
	}
	if v, err := TemporalProperty(temporal.Time{Nanos: 0, Offset: -5400}, "offsetMinutes"); err != nil || v != int64(-90) {
		t.Errorf("offsetMinutes = %v %v", v, err)
	}
	c := &graphless{}
	// Odd inputs give errors, never panics.
	for _, m := range []map[string]vector.Value{
		{"year": "x"}, {"year": int64(1 << 40)}, {"year": 2015.5}, {"date": int64(1)}, {"time": "12:00"},
		{"year": int64(2015), "week": int64(60)}, {"hour": int64(12), "timezone": int64(1)},
		{"epochSeconds": int64(1 << 62)}, {"year": int64(2015), "quarter": int64(5)},
		{"hour": int64(1), "minute": int64(2), "second": int64(3), "millisecond": int64(1), "microsecond": int64(1000)},
	} {
		for k := kDate; k <= kDateTime; k++ {
			if v, err := construct(c, k, []vector.Value{m}); err == nil && k == kDateTime {
				t.Errorf("%s(%v) = %v, want an error", kindNames[k], m, v)
			}
		}
	}
	for _, s := range []string{"", "P", "PT", "-", "+", "2015-", "T", "Z", "[", "2015-07-21T[", "99999999999", "P1Y2M3W4DT5H6M7.5S", "P-", "PT1.S"} {
		for k := kDate; k <= kDateTime; k++ {
			_, _ = construct(c, k, []vector.Value{s})
		}
		_, _ = makeDuration(s)
	}
}
