package jsontext

import (
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	cases := map[string]string{
		"plain":         `"plain"`,
		`q"b\`:          `"q\"b\\"`,
		"\n\r\t\x01":    `"\n\r\t\u0001"`,
		"\x7f":          "\"\x7f\"",
		"é✓😀":           `"é✓😀"`,
		"a\u2028b":      `"a\u2028b"`,
		"bad\xffutf8":   "\"bad\ufffdutf8\"",
		"":              `""`,
		"trunc\xe2\x82": "\"trunc\ufffd\ufffd\"",
	}
	for in, want := range cases {
		got := string(AppendString(nil, in))
		if got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
		var back string
		if err := json.Unmarshal([]byte(got), &back); err != nil {
			t.Errorf("AppendString(%q) is not valid JSON: %v", in, err)
		}
		if utf8.ValidString(in) && back != in {
			t.Errorf("round trip of %q gave %q", in, back)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	cases := map[float64]string{1: "1.0", -2.5: "-2.5", 1e21: "1e+21", 0.1: "0.1", math.NaN(): "null", math.Inf(1): "null", 1e-7: "1e-07"}
	for in, want := range cases {
		if got := string(AppendFloat(nil, in)); got != want {
			t.Errorf("AppendFloat(%v) = %s, want %s", in, got, want)
		}
	}
}
