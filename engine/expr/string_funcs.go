package expr

import (
	"encoding/binary"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/quiverdb/quiver/engine/functions"
	"github.com/quiverdb/quiver/engine/memory"
	"github.com/quiverdb/quiver/engine/plan"
	"github.com/quiverdb/quiver/vector"
)

// Typed kernels of the string functions over STRING vectors. trim and
// the positional functions (substring, left, right) return parts of
// their input, which costs no allocation. toLower and toUpper build the
// batch's changed ASCII strings into one buffer, one allocation a batch
// instead of one a row (a string kept from it, as a group key, keeps
// the batch's buffer: a few KiB); a string with other characters goes
// through the standard library as before.

// caseMapKernel is toLower (lower) or toUpper. Each string's ASCII
// letters are mapped into the buffer eight bytes at a time; a string the mapping leaves as it is is returned as it is (the
// copy is dropped), and one with other characters maps its runes by the
// unicode rules. The buffer may grow while the batch is built: the
// strings taken from it before stay in the array they were cut from,
// which is never written again.
func caseMapKernel(lower bool, full func(string) string) unaryKernel {
	mapRune := unicode.ToUpper
	if lower {
		mapRune = unicode.ToLower
	}
	return func(e *unaryEval, x *vector.Vector, sel []int32, n int) (*vector.Vector, bool, error) {
		if x.Type != vector.String {
			return nil, false, nil
		}
		out := e.typedOut(vector.String, x, sel, n)
		size := 0
		forSel(sel, n, func(r int) { size += len(x.Str[r]) })
		buf := make([]byte, 0, size)
		forSel(sel, n, func(r int) {
			s := x.Str[r]
			at := len(buf)
			if cap(buf)-at < len(s) {
				buf = slices.Grow(buf, len(s))
			}
			buf = buf[:at+len(s)]
			changed, ascii := caseMapASCII(buf[at:], s, lower)
			switch {
			case !ascii:
				var valid bool
				if buf, valid = caseMapRunes(buf[:at], s, lower, mapRune); !valid {
					buf = buf[:at]
					out.Str[r] = full(s) // the standard library's rules for bad bytes
					return
				}
			case !changed:
				buf = buf[:at]
				out.Str[r] = s
				return
			}
			out.Str[r] = unsafe.String(unsafe.SliceData(buf[at:]), len(buf)-at)
		})
		return out, true, nil
	}
}

// caseMapASCII writes src into dst (as long) with the case of its ASCII
// letters mapped, eight bytes a word, and says whether it changed a byte
// and whether src is all ASCII (when it is not, dst is left partly
// written). The last bytes are mapped as the word ending with src,
// overlapping the word before, or, in a string shorter than a word,
// gathered into one: no byte is mapped a byte at a time. Words are read
// from src and written to dst, never read where they were just written
// (a load overlapping a store in part waits for it): mapping in place
// after a copy cost twice as much.
func caseMapASCII(dst []byte, src string, lower bool) (changed, ascii bool) {
	// In a word of ASCII bytes, adding 0x80-lo sets a byte's top bit
	// where the byte is at least lo, and adding 0x80-(hi+1) where it is
	// above hi, with no carry between bytes: the letters are the bytes
	// with the first bit and not the second, and 0x20 changes a case.
	add1, add2 := caseMasks(lower)
	const high = 0x8080808080808080
	n := len(src)
	dst = dst[:n]
	if n < 8 {
		var w uint64 // the bytes past src's are zeros: no letters, ASCII
		for i := n - 1; i >= 0; i-- {
			w = w<<8 | uint64(src[i])
		}
		if w&high != 0 {
			return false, false
		}
		m := (w + add1) &^ (w + add2) & high
		w ^= m >> 2
		for i := range dst {
			dst[i] = byte(w >> (8 * i))
		}
		return m != 0, true
	}
	var any uint64
	for i := 0; ; i += 8 {
		i = min(i, n-8) // the last word ends with src
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(src[i:]), 8))
		if w&high != 0 {
			return any != 0, false
		}
		m := (w + add1) &^ (w + add2) & high
		any |= m
		binary.LittleEndian.PutUint64(dst[i:], w^m>>2)
		if i == n-8 {
			return any != 0, true
		}
	}
}

// caseMapRunes appends s to buf with its case mapped, the ASCII runs a
// word at a time and the other runes by mapRune; false when s is not
// valid UTF-8 (buf is then partly written). Checking the string first
// (utf8.ValidString) and mapping its ASCII bytes one by one cost about
// as much again.
func caseMapRunes(buf []byte, s string, lower bool, mapRune func(rune) rune) ([]byte, bool) {
	add1, add2 := caseMasks(lower)
	const high = 0x8080808080808080
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8)); w&high == 0 {
				m := (w + add1) &^ (w + add2) & high
				buf = binary.LittleEndian.AppendUint64(buf, w^m>>2)
				i += 8
				continue
			}
		}
		if c := s[i]; c < utf8.RuneSelf {
			buf = append(buf, caseMapByte(c, lower))
			i++
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			return buf, false
		}
		buf = utf8.AppendRune(buf, mapRune(c))
		i += size
	}
	return buf, true
}

// caseMasks are the two addends that find the ASCII letters of a word
// to map (caseMapASCII).
func caseMasks(lower bool) (add1, add2 uint64) {
	if lower {
		return 0x3f3f3f3f3f3f3f3f, 0x2525252525252525 // 'A', 'Z'+1
	}
	return 0x1f1f1f1f1f1f1f1f, 0x0505050505050505 // 'a', 'z'+1
}

// caseMapByte maps the case of an ASCII byte.
func caseMapByte(c byte, lower bool) byte {
	if lower {
		if 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// forSel calls fn for the selected rows (the slow paths' ForRows, kept
// apart for the kernels of this file, which are not slow paths: the
// closure is inlined).
func forSel(sel []int32, n int, fn func(r int)) {
	if sel == nil {
		for r := range n {
			fn(r)
		}
		return
	}
	for _, r := range sel {
		fn(int(r))
	}
}

func isSpace(r rune) bool { return unicode.IsSpace(r) }

// asciiSpace marks the ASCII bytes unicode.IsSpace holds: the other
// spaces (U+0085, U+00A0 …) are not ASCII.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// trimLeft and trimRight skip ASCII spaces byte by byte and leave the
// rest, from the first byte that is not ASCII, to the unicode rules.
func trimLeft(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.TrimLeftFunc(s[i:], isSpace)
		}
		if !asciiSpace[c] {
			return s[i:]
		}
	}
	return ""
}

func trimRight(s string) string {
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.TrimRightFunc(s[:i+1], isSpace)
		}
		if !asciiSpace[c] {
			return s[:i+1]
		}
	}
	return ""
}

var trimKernels = map[string]func(string) string{
	"trim":  func(s string) string { return trimRight(trimLeft(s)) },
	"ltrim": trimLeft,
	"rtrim": trimRight,
}

func init() {
	for _, name := range []string{"substring", "left", "right"} {
		registerCompiler(name, compilePositional)
	}
}

// positionalEval is substring, left and right over a STRING vector with
// INTEGER (or constant) positions. A row whose position is null or
// negative fails; the batch then takes the row path, which reports the
// error as it always did (and any other row's, in order).
type positionalEval struct {
	output
	name string
	s    Evaluator
	ns   []Evaluator
	row  *callEval
}

// bindSlot gives the row path the same slot: one of the two writes it.
func (e *positionalEval) bindSlot(s *slot) { e.output.bindSlot(s); e.row.bindSlot(s) }

func compilePositional(c *Env, e *plan.Call) (Evaluator, error) {
	row, err := compileRowCall(c, e)
	if err != nil {
		return nil, err
	}
	return &positionalEval{name: e.Name, s: row.args[0], ns: row.args[1:], row: row}, nil
}

func (e *positionalEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	for i, a := range e.row.args {
		v, err := a.Eval(b)
		if err != nil {
			return nil, err
		}
		e.row.vecs[i] = v
	}
	x := e.row.vecs[0]
	if x.Type == vector.Null {
		return NullVector, nil
	}
	sel, n := rows(b)
	if out, ok := e.typed(x, e.row.vecs[1:], sel, n); ok {
		return out, nil
	}
	return e.row.evalVecs(b, e.row.vecs)
}

// typed is the kernel; false when the batch must take the row path.
func (e *positionalEval) typed(x *vector.Vector, ns []*vector.Vector, sel []int32, n int) (*vector.Vector, bool) {
	if x.Type != vector.String {
		return nil, false
	}
	for _, v := range ns {
		if v.Type != vector.Int64 {
			return nil, false
		}
	}
	if out, ok := e.constCounts(x, sel, n); ok {
		return out, true
	}
	out := e.vec(vector.String, n)
	ok := true
	count := func(v *vector.Vector, r int) int {
		c, valid := functions.CountArg(v.I64[r])
		ok = ok && valid && v.Valid.IsValid(r)
		return c
	}
	forSel(sel, n, func(r int) {
		if !ok {
			return
		}
		if x.IsNull(r) {
			out.SetNull(r)
			return
		}
		s := x.Str[r]
		switch {
		case e.name == "left":
			out.Str[r] = functions.Left(s, count(ns[0], r))
		case e.name == "right":
			out.Str[r] = functions.Right(s, count(ns[0], r))
		case len(ns) == 1:
			out.Str[r] = functions.Substring(s, count(ns[0], r), -1)
		default:
			out.Str[r] = functions.Substring(s, count(ns[0], r), count(ns[1], r))
		}
	})
	return out, ok
}

// constCounts is typed when every position is a constant, valid: the
// positions are checked once, and the rows cut in a loop for the
// function at hand; false when a position is not such a constant.
func (e *positionalEval) constCounts(x *vector.Vector, sel []int32, n int) (*vector.Vector, bool) {
	var counts [2]int
	for i, a := range e.ns {
		k, isConst := a.(*constEval)
		if !isConst {
			return nil, false
		}
		v, isInt := k.val.(int64)
		c, valid := functions.CountArg(v)
		if !isInt || !valid {
			return nil, false
		}
		counts[i] = c
	}
	out := e.vec(vector.String, n)
	dst, src := out.Str, x.Str
	c0, c1 := counts[0], counts[1]
	switch {
	case e.name == "left":
		forSel(sel, n, func(r int) { dst[r] = functions.Left(src[r], c0) })
	case e.name == "right":
		forSel(sel, n, func(r int) { dst[r] = functions.Right(src[r], c0) })
	case len(e.ns) == 1:
		forSel(sel, n, func(r int) { dst[r] = functions.Substring(src[r], c0, -1) })
	default:
		forSel(sel, n, func(r int) { dst[r] = functions.Substring(src[r], c0, c1) })
	}
	copyNulls(out, x, sel, n)
	return out, true
}

func init() { registerCompiler("split", compileSplit) }

// splitEval is split(s, d) for a STRING vector and a constant, non-empty
// delimiter: the batch's lists are cut from one array, each with its own
// capacity, and the parts are found without an intermediate []string.
// The memory the row path would reserve row by row is reserved for the
// batch at once. Other forms (a list of delimiters, the empty one that
// splits characters, a delimiter per row) take the row path.
type splitEval struct {
	output
	c   *Env
	s   Evaluator
	sep string
	row *callEval
}

// bindSlot gives the row path the same slot: one of the two writes it.
func (e *splitEval) bindSlot(s *slot) { e.output.bindSlot(s); e.row.bindSlot(s) }

func compileSplit(c *Env, e *plan.Call) (Evaluator, error) {
	k, isConst := e.Args[1].(*plan.Const)
	if !isConst {
		return nil, nil
	}
	sep, isStr := k.Val.(string)
	if !isStr || sep == "" {
		return nil, nil
	}
	row, err := compileRowCall(c, e)
	if err != nil {
		return nil, err
	}
	return &splitEval{c: c, s: row.args[0], sep: sep, row: row}, nil
}

func (e *splitEval) Eval(b *vector.Batch) (*vector.Vector, error) {
	x, err := e.s.Eval(b)
	if err != nil {
		return nil, err
	}
	sel, n := rows(b)
	if x.Type != vector.String {
		e.row.vecs[0] = x
		if e.row.vecs[1], err = e.row.args[1].Eval(b); err != nil {
			return nil, err
		}
		return e.row.evalVecs(b, e.row.vecs)
	}
	var reserve int64
	parts := 0
	forSel(sel, n, func(r int) {
		if !x.IsNull(r) {
			reserve += int64(len(x.Str[r])+1) * (memory.IfaceBytes + memory.StringBytes)
			parts += strings.Count(x.Str[r], e.sep) + 1
		}
	})
	if err := e.c.Reserve(reserve); err != nil {
		return nil, err
	}
	// The parts are cut into one array of strings and each row's list
	// from one array of values, each with its own capacity; the parts
	// and the lists are then boxed from their arrays (boxAll).
	strs := make([]string, parts)
	all := make([]vector.Value, parts)
	lists := make([][]vector.Value, n)
	at := 0
	out := e.vec(vector.Any, n)
	forSel(sel, n, func(r int) {
		if x.IsNull(r) {
			return
		}
		s, from := x.Str[r], at
		for {
			i := strings.Index(s, e.sep)
			if i < 0 {
				break
			}
			strs[at] = s[:i]
			s = s[i+len(e.sep):]
			at++
		}
		strs[at] = s
		at++
		lists[r] = all[from:at:at]
	})
	boxAll(all, strs)
	boxAll(out.Any[:n], lists) // a row not selected takes an empty list
	copyNulls(out, x, sel, n)
	return out, nil
}

// runeCount is utf8.RuneCountInString, with the ASCII part counted
// eight bytes a word.
func runeCount(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))&0x8080808080808080 != 0 {
			break
		}
	}
	return i + utf8.RuneCountInString(s[i:])
}
