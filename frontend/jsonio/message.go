package jsonio

import "unicode/utf8"

// MaxMessageBytes bounds an error's message on every protocol: one may
// quote a value, and a value can be megabytes long.
const MaxMessageBytes = 1024

// CutMessage cuts m to MaxMessageBytes at a character boundary, marking
// the cut with "…".
func CutMessage(m string) string {
	if len(m) <= MaxMessageBytes {
		return m
	}
	cut := MaxMessageBytes
	for cut > 0 && !utf8.RuneStart(m[cut]) {
		cut--
	}
	return m[:cut] + "…"
}
