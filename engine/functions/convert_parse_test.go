package functions

import (
	"math"
	"strconv"
	"testing"
)

// TestParseShortDecimal checks the fast path of ParseInteger and
// ParseFloat against strconv, on both sides of its limits (18 digits,
// 2^53) and on what it must leave to strconv.
func TestParseShortDecimal(t *testing.T) {
	inputs := []string{"0", "-0", "+0", "7", "+7", "-7", "007", "-007", "12345", "999999999999999999",
		"-999999999999999999", "1000000000000000000", "9007199254740992", "9007199254740993", "-9007199254740993",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "", "-", "+", "--1", "+-1", "1_000",
		" 4", "4 ", "2.5", "1e3", "0x10", "Inf", "NaN", "١٢", "12a"}
	for _, s := range inputs {
		wantF, err := strconv.ParseFloat(s, 64)
		gotF, ok := ParseFloat(s)
		same := gotF == wantF && math.Signbit(gotF) == math.Signbit(wantF) || math.IsNaN(gotF) && math.IsNaN(wantF)
		if ok != (err == nil) || ok && !same {
			t.Errorf("ParseFloat(%q) = %v, %v; strconv: %v, %v", s, gotF, ok, wantF, err)
		}
		wantI, wantOK := int64(0), false
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			wantI, wantOK = i, true
		} else if f, err := strconv.ParseFloat(s, 64); err == nil {
			wantI, wantOK = FloatToInt(f)
		}
		gotI, ok := ParseInteger(s)
		if ok != wantOK || ok && gotI != wantI {
			t.Errorf("ParseInteger(%q) = %v, %v; want %v, %v", s, gotI, ok, wantI, wantOK)
		}
	}
}
