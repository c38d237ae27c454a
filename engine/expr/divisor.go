package expr

import (
	"math"
	"math/bits"
)

// divisor divides by a constant INTEGER as a multiplication and a shift,
// as a compiler does for a divisor it knows (Granlund and Montgomery;
// Hacker's Delight, 10-1, for 64 bits): a hardware division costs tens
// of cycles a row, the multiplication a few. x / 10 over a column runs
// at the speed of the plain Go loop that divides by the literal.
type divisor struct {
	d     int64
	magic int64
	shift uint
	// fix is added times the dividend: +1 when d > 0 and the magic
	// number is negative, -1 when d < 0 and it is positive.
	fix int64
}

// newDivisor returns the divisor d; false for 0, 1, -1 and MinInt64,
// which the division itself handles (or rejects).
func newDivisor(d int64) (divisor, bool) {
	if d == 0 || d == 1 || d == -1 || d == math.MinInt64 {
		return divisor{}, false
	}
	const two63 = uint64(1) << 63
	ad := uint64(d)
	if d < 0 {
		ad = uint64(-d)
	}
	t := two63 + uint64(d)>>63
	anc := t - 1 - t%ad // |nc|
	p := 63
	q1, r1 := two63/anc, two63%anc
	q2, r2 := two63/ad, two63%ad
	for {
		p++
		q1, r1 = 2*q1, 2*r1
		if r1 >= anc {
			q1, r1 = q1+1, r1-anc
		}
		q2, r2 = 2*q2, 2*r2
		if r2 >= ad {
			q2, r2 = q2+1, r2-ad
		}
		delta := ad - r2
		if q1 >= delta && (q1 != delta || r1 != 0) {
			break
		}
	}
	v := divisor{d: d, magic: int64(q2 + 1), shift: uint(p - 64)}
	if d < 0 {
		v.magic = -v.magic
	}
	switch {
	case d > 0 && v.magic < 0:
		v.fix = 1
	case d < 0 && v.magic > 0:
		v.fix = -1
	}
	return v, true
}

// quo is n / d, truncated toward zero as Go's / is.
func (v divisor) quo(n int64) int64 {
	hi, _ := bits.Mul64(uint64(v.magic), uint64(n))
	q := int64(hi) - (v.magic>>63)&n - (n>>63)&v.magic // the signed high word
	q += v.fix * n
	q >>= v.shift
	return q + int64(uint64(q)>>63)
}

// rem is n % d, with the dividend's sign as Go's % has.
func (v divisor) rem(n int64) int64 { return n - v.quo(n)*v.d }

// plain reports whether quoPlain divides by v: a positive divisor with a
// non-negative magic number (3, 10, 100 … ; 7 is not), for which quo's
// terms in the magic number's sign and in fix are zero.
func (v divisor) plain() bool { return v.d > 0 && v.magic >= 0 && v.fix == 0 }

// quoPlain is quo for a plain divisor, without the terms that are zero:
// a multiplication a row instead of two (BenchmarkExpr/arith, x / 10,
// 1.11 → 0.83 ns a row of CPU time).
func (v divisor) quoPlain(n int64) int64 {
	hi, _ := bits.Mul64(uint64(v.magic), uint64(n))
	q := (int64(hi) - (n>>63)&v.magic) >> v.shift
	return q + int64(uint64(q)>>63)
}

// remPlain is rem for a plain divisor.
func (v divisor) remPlain(n int64) int64 { return n - v.quoPlain(n)*v.d }
