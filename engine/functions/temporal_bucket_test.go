package functions

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// refBucket is quiver.ts.bucket written with package time on the wall
// clock: fixed widths step from origin, month widths count calendar
// months from origin's month (origin on the first, at midnight).
func refBucket(wall time.Time, d temporal.Duration, origin time.Time) time.Time {
	if d.Months > 0 {
		months := (wall.Year()-origin.Year())*12 + int(wall.Month()-origin.Month())
		k := months / int(d.Months)
		if months%int(d.Months) != 0 && months < 0 {
			k--
		}
		return time.Date(origin.Year(), origin.Month()+time.Month(k*int(d.Months)), 1, 0, 0, 0, 0, time.UTC)
	}
	width := time.Duration(d.Days)*24*time.Hour + time.Duration(d.Seconds)*time.Second + time.Duration(d.Nanos)
	return origin.Add(wall.Sub(origin).Truncate(width) - width*time.Duration(boolInt(wall.Before(origin) && wall.Sub(origin)%width != 0)))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// toLocal is a wall-clock time.Time (read in UTC) as a LOCAL DATETIME.
func toLocal(w time.Time) temporal.LocalDateTime {
	return temporal.LocalDateTime{Sec: w.Unix(), Nanos: int32(w.Nanosecond())}
}

// TestBucketAgreesWithReference floors random instants from 1960 to 2060
// (month ends, leap years, before and after the origin) in random fixed
// offsets, as LOCAL and ZONED DATETIME and as DATE, and compares with
// refBucket.
func TestBucketAgreesWithReference(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 35))
	widths := []string{"PT1S", "PT0.25S", "PT15M", "PT1H", "PT7H", "P1D", "P7D", "P10DT3H", "P1M", "P2M", "P3M", "P1Y", "P5Y"}
	lo := time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(2060, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for range 20000 {
		ws := widths[rng.IntN(len(widths))]
		d, err := temporal.ParseDuration(ws)
		if err != nil {
			t.Fatal(err)
		}
		sec := lo + rng.Int64N(hi-lo)
		if rng.IntN(3) == 0 { // near a month's end
			y, m := 1960+rng.IntN(100), time.Month(1+rng.IntN(12))
			sec = time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC).Unix() - rng.Int64N(2*86400) + 86400
		}
		wall := time.Unix(sec, rng.Int64N(1e9)).UTC()
		origin := time.Date(2000, 1, 3, 0, 0, 0, 0, time.UTC)
		if d.Months > 0 {
			origin = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		}
		want := refBucket(wall, d, origin)
		// LOCAL DATETIME.
		got, err := bucketKernel(nil, []vector.Value{toLocal(wall), d})
		if err != nil || got != toLocal(want) {
			t.Fatalf("bucket(%v, %s) = %v, %v; want %v", toLocal(wall), ws, got, err, toLocal(want))
		}
		// ZONED DATETIME at a fixed offset: the same wall clock, the offset kept.
		off := int32(rng.IntN(26*4)-14*4) * 15 * 60
		z := temporal.InOffset(toLocal(wall), off)
		got, err = bucketKernel(nil, []vector.Value{z, d})
		if err != nil || got != temporal.InOffset(toLocal(want), off) {
			t.Fatalf("bucket(%v, %s) = %v, %v; want %v", z, ws, got, err, temporal.InOffset(toLocal(want), off))
		}
		// DATE, for whole-day widths.
		if d.Seconds == 0 && d.Nanos == 0 {
			day := toLocal(wall).Date()
			midnight := time.Date(wall.Year(), wall.Month(), wall.Day(), 0, 0, 0, 0, time.UTC)
			got, err = bucketKernel(nil, []vector.Value{day, d})
			if want := toLocal(refBucket(midnight, d, origin)).Date(); err != nil || got != want {
				t.Fatalf("bucket(%v, %s) = %v, %v; want %v", day, ws, got, err, want)
			}
		}
	}
}

// TestBucketFarFromOrigin checks bucket starts whose distance from the
// origin in nanoseconds leaves int64 (the big-number path).
func TestBucketFarFromOrigin(t *testing.T) {
	d, _ := temporal.ParseDuration("PT0.3S")
	v, _ := temporal.ParseLocalDateTime("9999-12-31T23:59:59.999")
	got, err := bucketKernel(nil, []vector.Value{v, d})
	if err != nil {
		t.Fatal(err)
	}
	g := got.(temporal.LocalDateTime)
	o := temporal.MakeLocalDateTime(temporal.Date{Days: DefaultFixedOrigin}, 0)
	// (g - o) is a multiple of 0.3 s and v - g is below it.
	if less(v, g) || ((g.Sec-o.Sec)*10+int64(g.Nanos)/100_000_000)%3 != 0 || g.Nanos%100_000_000 != 0 {
		t.Fatalf("bucket(%v, PT0.3S) = %v", v, g)
	}
	diff := (v.Sec-g.Sec)*1_000_000_000 + int64(v.Nanos-g.Nanos)
	if diff < 0 || diff >= 300_000_000 {
		t.Fatalf("bucket(%v, PT0.3S) = %v: %d ns apart", v, g, diff)
	}
}
