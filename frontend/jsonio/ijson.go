package jsonio

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/quiverdb/quiver/engine"
)

// What DecodeObject refuses besides syntax (object.go): a key given twice
// in one object, text that is not UTF-8, and \u escapes that name no
// character. Each error says where, for the client to find it.

// repeatedKey is a key found twice in one object, and where that object
// is: the keys and array indexes leading to it, innermost first.
type repeatedKey struct {
	key  string
	path []string
}

// index is an array index as a path element.
func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

func (r *repeatedKey) error(noun string) error {
	where := "at the top level"
	if len(r.path) > 0 {
		var b []byte
		for i := len(r.path) - 1; i >= 0; i-- {
			b = appendPathElem(b, r.path[i])
		}
		where = "at " + string(b)
	}
	return engine.NewError(engine.CodeData, engine.CatData,
		"%s has the key %s twice in one object (%s): a key may appear once in an object", noun, quote(r.key), where)
}

// appendPathElem appends one element of a path as JSONPath writes it:
// .name for a plain key, ["…"] for another, [i] for an array index.
func appendPathElem(b []byte, e string) []byte {
	if len(e) > 0 && e[0] == '[' {
		return append(b, e...)
	}
	plain := e != ""
	for i := 0; i < len(e); i++ {
		c := e[i]
		if !(c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain && len(e) <= 64 {
		if len(b) > 0 {
			b = append(b, '.')
		}
		return append(b, e...)
	}
	return append(append(append(b, '['), quote(e)...), ']')
}

// quote quotes a client's key for an error, cut to 64 bytes.
func quote(s string) string {
	if len(s) <= 64 {
		return strconv.Quote(s)
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// loneSurrogate returns the offset of the first \u escape of valid JSON
// text that is half of a surrogate pair without its other half, or -1.
// Outside strings valid JSON has no backslash, and inside one each
// backslash begins an escape, so a scan from escape to escape is exact.
func loneSurrogate(b []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			return -1
		}
		i += j
		if b[i+1] != 'u' {
			i += 2 // \" \\ \/ \b \f \n \r \t
			continue
		}
		switch r := hex4(b[i+2:]); {
		case 0xD800 <= r && r < 0xDC00: // high: a low must follow
			if i+12 <= len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
				if lo := hex4(b[i+8:]); 0xDC00 <= lo && lo < 0xE000 {
					i += 12
					continue
				}
			}
			return i
		case 0xDC00 <= r && r < 0xE000: // a low with no high before it
			return i
		}
		i += 6
	}
}

// hex4 reads the four hex digits of a \u escape json.Valid accepted.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c <= '9':
			c -= '0'
		case c >= 'a':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// invalidUTF8 says where body stops being UTF-8.
func invalidUTF8(body []byte, noun string) error {
	at := 0
	for at < len(body) {
		r, n := utf8.DecodeRune(body[at:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		at += n
	}
	return engine.NewError(CodeBadCharacter, engine.CatData,
		"%s is not valid UTF-8: byte %d (0x%02x) is not part of a UTF-8 character; send text in UTF-8", noun, at, body[at])
}
