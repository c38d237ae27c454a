package functions

import (
	"testing"
	"unicode/utf8"
)

// TestRuneOffset checks the offsets of the characters of ASCII, mixed
// and invalid strings, shorter and longer than a word, against a walk of
// their runes, for counts from 0 past their ends.
func TestRuneOffset(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefg", "abcdefgh", "abcdefghij", "ñabcdefgh", "abcdeñfgh", "abcdefgñ", "abcdefghñ",
		"日本語テキスト", "\xffabcdefgh", "abc\xffdefgh", " Ñame_12345 ", " Name_12345 "} {
		for n := range utf8.RuneCountInString(s) + 3 {
			want, k := len(s), 0
			for i := range s {
				if k == n {
					want = i
					break
				}
				k++
			}
			if got := runeOffset(s, n); got != want {
				t.Fatalf("runeOffset(%q, %d) = %d, want %d", s, n, got, want)
			}
		}
	}
}
