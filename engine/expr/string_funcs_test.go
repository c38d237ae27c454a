package expr

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestCaseMapASCII checks the word-at-a-time case mapping against the
// standard library over every ASCII byte at every offset of a word, strings of every length up
// to a word and a part, and strings that turn to other characters part
// way.
func TestCaseMapASCII(t *testing.T) {
	var all []byte
	for c := range 128 {
		all = append(all, byte(c))
	}
	var inputs []string
	for at := range 9 {
		inputs = append(inputs, strings.Repeat("x", at)+string(all), string(all[at:]), string(all[:at*13]))
	}
	for n := range 18 { // shorter than a word, a word and a part
		mixed := strings.Repeat("Zz@[`{Aa", 3)[:n]
		inputs = append(inputs, mixed, mixed+"É", "é"+mixed, strings.ToLower(mixed), strings.ToUpper(mixed))
	}
	inputs = append(inputs, "", "abcdefgh", "ABCDEFGH", "ABCDEFGHÀ", "abcdefghijklmnopà", "12345678", "@[`{@[`{")
	for _, s := range inputs {
		for _, lower := range []bool{true, false} {
			want := strings.ToUpper(s)
			if lower {
				want = strings.ToLower(s)
			}
			b := make([]byte, len(s))
			changed, ascii := caseMapASCII(b, s, lower)
			if !ascii {
				if strings.IndexFunc(s, func(r rune) bool { return r >= 128 }) < 0 {
					t.Fatalf("%q: not ASCII, says caseMapASCII", s)
				}
				continue
			}
			if string(b) != want || changed != (want != s) {
				t.Fatalf("%q lower=%v: %q changed=%v, want %q", s, lower, b, changed, want)
			}
		}
	}
}

// TestCaseMapRunes checks the mapping of strings with other characters
// against the standard library: ASCII runs of a word and more around
// them, characters whose mapping changes their length, and bytes that
// are not UTF-8 (refused, for the standard library's own rules).
func TestCaseMapRunes(t *testing.T) {
	inputs := []string{"Ñ", " Ñame_12345 ", "ABCDEFGHIJ Ñ KLMNOPQRST", "ÀÉÎ abcdefgh ÕÜ", "İSTANBUL istanbul", "ΑΒΓ mixed ΔΕ",
		"ſ ǅ ǆ Ǆ", "日本語 ABCDEFGH", "abc\xffDEF", "ABCDEFGH\xfe", "\xc3", "ñ\xc3(", "\uFFFD ok"}
	for _, s := range inputs {
		for _, lower := range []bool{true, false} {
			want, mapRune := strings.ToUpper(s), unicode.ToUpper
			if lower {
				want, mapRune = strings.ToLower(s), unicode.ToLower
			}
			got, valid := caseMapRunes([]byte("x"), s, lower, mapRune)
			if valid != utf8.ValidString(s) {
				t.Fatalf("%q: valid %v", s, valid)
			}
			if valid && string(got) != "x"+want {
				t.Fatalf("%q lower=%v: %q, want %q", s, lower, got[1:], want)
			}
		}
	}
}
