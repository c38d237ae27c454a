package jsonio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/valyala/fastjson"

	"github.com/quiverdb/quiver/engine"
)

// A request object is I-JSON (RFC 7493), on every protocol: UTF-8 text
// whose strings are Unicode (no \u escape of half a surrogate pair) and
// whose objects name each key once. encoding/json and fastjson take
// more: invalid UTF-8 and lone surrogate escapes become U+FFFD (or stay
// as escape text), and of a key given twice the last wins, so what was
// stored or run was not what the client sent. DecodeObject refuses them
// instead: 22021 (character not in repertoire) for text that is not
// Unicode, 22000 naming the repeated key.
//
// The request bodies of a write-heavy load are small JSON objects decoded
// once each; encoding/json's decoder into map[string]any cost ~8 µs of
// the ~75 µs of server CPU an auto-commit CREATE takes at 32 clients.
// DecodeObject builds the same tree (objects as map[string]any, arrays as
// []any, numbers as json.Number) with fastjson, once the body passed
// json.Valid (the standard scanner, so every syntax error still comes
// from encoding/json) and the character checks: on such a body the two
// decoders agree (fastjson's unescaping differs only on lone surrogate
// escapes, refused before). Only nesting past fastjson's limit takes
// encoding/json's token reader. FuzzFastObject checks the agreement and
// the refusals.

// CodeBadCharacter is the status of text that is not Unicode: "character
// not in repertoire". Package engine does not name it; it is spelled as
// package errs spells its codes.
const CodeBadCharacter = "22021"

var jsonParsers fastjson.ParserPool

// DecodeObject decodes a message holding one JSON object, as
// encoding/json with UseNumber would, refusing what is not I-JSON (see
// above). noun names the message in errors ("the request body"); what
// completes the error of a message that is another JSON value ("with a
// … field"). Every error is an *engine.Error (22000, or 22021 for text
// that is not Unicode) that says what is wrong, for the client to read.
func DecodeObject(body []byte, noun, what string) (map[string]any, error) {
	if !utf8.Valid(body) {
		return nil, invalidUTF8(body, noun)
	}
	if !json.Valid(body) {
		return nil, syntaxError(body, noun, what)
	}
	if bytes.IndexByte(body, '\\') >= 0 {
		if at := loneSurrogate(body); at >= 0 {
			return nil, engine.NewError(CodeBadCharacter, engine.CatData,
				"%s has the escape %s at byte %d, half of a UTF-16 surrogate pair without its other half: it names no character",
				noun, body[at:at+6], at)
		}
	}
	if deeperThan(body, fastjson.MaxDepth-1) {
		// fastjson would refuse it only after building an error message
		// per level: 4 MB and milliseconds for one body.
		return stdObject(body, noun, what)
	}
	if obj, dup, ok := fastObject(body); ok {
		if dup != nil {
			return nil, dup.error(noun)
		}
		if obj == nil {
			return nil, notObject(noun, what)
		}
		return obj, nil
	}
	return stdObject(body, noun, what)
}

// fastObject decodes valid JSON with fastjson; ok is false when fastjson
// refuses it (nesting past fastjson.MaxDepth, which deeperThan keeps
// from it), obj nil when it is not an object.
func fastObject(body []byte) (obj map[string]any, dup *repeatedKey, ok bool) {
	p := jsonParsers.Get()
	defer jsonParsers.Put(p)
	v, err := p.ParseBytes(body)
	if err != nil {
		return nil, nil, false
	}
	if v.Type() != fastjson.TypeObject {
		return nil, nil, true
	}
	t, dup := fastValue(v)
	if dup != nil {
		return nil, dup, true
	}
	return t.(map[string]any), nil, true
}

// deeperThan reports whether valid JSON nests arrays and objects more
// than n deep. Counting the brackets first keeps it one fast pass for
// the usual body.
func deeperThan(b []byte, n int) bool {
	if bytes.Count(b, []byte{'['})+bytes.Count(b, []byte{'{'}) <= n {
		return false
	}
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++ // the escaped byte
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			if depth++; depth > n {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// fastValue converts a parsed value to the tree encoding/json builds with
// UseNumber, or finds a key given twice in one object. It copies every
// string: the parser's memory is reused.
func fastValue(v *fastjson.Value) (any, *repeatedKey) {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		m := make(map[string]any, o.Len())
		var dup *repeatedKey
		o.Visit(func(k []byte, e *fastjson.Value) {
			if dup != nil {
				return
			}
			var ev any
			if ev, dup = fastValue(e); dup != nil {
				dup.path = append(dup.path, string(k))
				return
			}
			n := len(m)
			m[string(k)] = ev
			if len(m) == n { // the key was there: a map that did not grow
				dup = &repeatedKey{key: string(k)}
			}
		})
		return m, dup
	case fastjson.TypeArray:
		a, _ := v.Array()
		out := make([]any, len(a))
		for i, e := range a {
			var dup *repeatedKey
			if out[i], dup = fastValue(e); dup != nil {
				dup.path = append(dup.path, index(i))
				return nil, dup
			}
		}
		return out, nil
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return string(b), nil
	case fastjson.TypeNumber:
		return json.Number(v.MarshalTo(nil)), nil
	case fastjson.TypeTrue:
		return true, nil
	case fastjson.TypeFalse:
		return false, nil
	}
	return nil, nil
}

// stdObject decodes valid JSON that fastjson refuses (nesting past its
// limit; encoding/json's scanner allows 10,000 levels) with
// encoding/json's tokens, finding repeated keys as fastValue does.
func stdObject(body []byte, noun, what string) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	v, dup, err := stdValue(dec)
	switch {
	case err != nil:
		// json.Valid passed: encoding/json's two readers disagree.
		return nil, fmt.Errorf("BUG: jsonio: valid JSON the token reader refuses: %w", err)
	case dup != nil:
		return nil, dup.error(noun)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, notObject(noun, what)
	}
	return obj, nil
}

// stdValue reads one value from dec.
func stdValue(dec *json.Decoder) (any, *repeatedKey, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, nil, err
			}
			k, _ := kt.(string)
			v, dup, err := stdValue(dec)
			if err != nil || dup != nil {
				if dup != nil {
					dup.path = append(dup.path, k)
				}
				return nil, dup, err
			}
			if _, seen := m[k]; seen {
				return nil, &repeatedKey{key: k}, nil
			}
			m[k] = v
		}
		_, err := dec.Token() // '}'
		return m, nil, err
	case json.Delim('['):
		a := []any{}
		for i := 0; dec.More(); i++ {
			v, dup, err := stdValue(dec)
			if err != nil || dup != nil {
				if dup != nil {
					dup.path = append(dup.path, index(i))
				}
				return nil, dup, err
			}
			a = append(a, v)
		}
		_, err := dec.Token() // ']'
		return a, nil, err
	}
	return tok, nil, nil // string, json.Number, bool, nil
}

// syntaxError is encoding/json's account of JSON it refuses.
func syntaxError(body []byte, noun, what string) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return engine.NewError(engine.CodeData, engine.CatData, "%s is not valid JSON: %v", noun, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return engine.NewError(engine.CodeData, engine.CatData, "%s has data after its JSON object", noun)
	}
	return engine.NewError(engine.CodeData, engine.CatData, "%s is not valid JSON", noun)
}

func notObject(noun, what string) error {
	return engine.NewError(engine.CodeData, engine.CatData, "%s must be a JSON object %s", noun, what)
}
