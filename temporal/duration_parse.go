package temporal

import (
	"strconv"
	"strings"
)

// ParseDuration parses PnYnMnWnDTnHnMnS (components may be negative or
// fractional) or the alternative form PYYYY-MM-DDThh:mm:ss[.f].
func ParseDuration(s string) (Duration, error) {
	bad := formatErr("DURATION", s)
	body := s
	neg := false
	if strings.HasPrefix(body, "-") {
		neg, body = true, body[1:]
	}
	if !strings.HasPrefix(body, "P") || len(body) < 2 {
		return Duration{}, bad
	}
	body = body[1:]
	var d Duration
	var err error
	if len(body) >= 5 && body[4] == '-' && body[0] >= '0' && body[0] <= '9' {
		d, err = parseAltDuration(body, bad)
	} else {
		d, err = parseUnitDuration(body, bad)
	}
	if err != nil {
		return Duration{}, err
	}
	if neg {
		d = d.Neg()
	}
	return d, nil
}

func parseUnitDuration(body string, bad error) (Duration, error) {
	var b DurationBuilder
	inTime, any := false, false
	for len(body) > 0 {
		if body[0] == 'T' {
			if inTime {
				return Duration{}, bad
			}
			inTime, body = true, body[1:]
			continue
		}
		i := 0
		if body[0] == '-' || body[0] == '+' {
			i++
		}
		for i < len(body) && (body[i] >= '0' && body[i] <= '9' || body[i] == '.' || body[i] == ',') {
			i++
		}
		if i == len(body) {
			return Duration{}, bad
		}
		numText := strings.Replace(body[:i], ",", ".", 1)
		u := body[i]
		body = body[i+1:]
		iv, ierr := strconv.ParseInt(numText, 10, 64)
		fv, ferr := strconv.ParseFloat(numText, 64)
		if ferr != nil {
			return Duration{}, bad
		}
		isInt := ierr == nil
		any = true
		switch {
		case !inTime && u == 'Y':
			addMonths(&b, isInt, iv, fv, 12)
		case !inTime && u == 'M':
			addMonths(&b, isInt, iv, fv, 1)
		case !inTime && u == 'W':
			addDays(&b, isInt, iv, fv, 7)
		case !inTime && u == 'D':
			addDays(&b, isInt, iv, fv, 1)
		case inTime && u == 'H':
			addTime(&b, isInt, iv, fv, 3600*NanosPerSecond)
		case inTime && u == 'M':
			addTime(&b, isInt, iv, fv, 60*NanosPerSecond)
		case inTime && u == 'S':
			addTime(&b, isInt, iv, fv, NanosPerSecond)
		default:
			return Duration{}, bad
		}
	}
	if !any {
		return Duration{}, bad
	}
	return b.Duration()
}

func addMonths(b *DurationBuilder, isInt bool, iv int64, fv float64, k int64) {
	if isInt {
		b.months = b.addExact(b.months, iv, k)
	} else {
		b.AddMonths(fv * float64(k))
	}
}

func addDays(b *DurationBuilder, isInt bool, iv int64, fv float64, k int64) {
	if isInt {
		b.days = b.addExact(b.days, iv, k)
	} else {
		b.AddDays(fv * float64(k))
	}
}

func addTime(b *DurationBuilder, isInt bool, iv int64, fv float64, unitNanos int64) {
	if isInt {
		b.AddInt(iv, unitNanos)
	} else {
		b.AddFloat(fv, unitNanos)
	}
}

// parseAltDuration reads YYYY-MM-DDThh:mm:ss[.f].
func parseAltDuration(body string, bad error) (Duration, error) {
	c := &cursor{s: body}
	y, ok1 := c.num(4)
	ok2 := c.accept('-')
	m, ok3 := c.num(2)
	ok4 := c.accept('-')
	d, ok5 := c.num(2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return Duration{}, bad
	}
	var tod int64
	if c.accept('T') {
		var err error
		if tod, err = c.timeOfDay("DURATION"); err != nil {
			return Duration{}, err
		}
	}
	if !c.done() || m > 12 || d > 31 {
		return Duration{}, bad
	}
	return NewDuration(y*12+m, d, tod/NanosPerSecond, tod%NanosPerSecond), nil
}
