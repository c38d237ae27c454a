//go:build unix

package expr

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/quiverdb/quiver/temporal"
	"github.com/quiverdb/quiver/vector"
)

// The own loops of the families: for each,
// the plain Go loop a programmer would write with no engine around it,
// doing the family's computation over plain Go slices of the same
// values (a DATE as its day number in an []int64) into a plain slice.
// BenchmarkExpr times each beside its family, as "<family>.loop", and
// first checks that it computes what the family does, row for row.

// ownLoop is a family's own loop: run computes every row, get reads
// row i of the last run's output as the engine's value.
type ownLoop struct {
	run func()
	get func(i int) vector.Value
}

// ownLoops builds the own loops over c's columns, by family name. Each
// loop is written out, as a programmer would, with no call through a
// function value a row.
func ownLoops(c *benchCols) map[string]ownLoop {
	days := make([]int64, c.n)
	for i, d := range c.d {
		days[i] = d.(temporal.Date).Days
	}
	str, i64, f64, bl := make([]string, c.n), make([]int64, c.n), make([]float64, c.n), make([]bool, c.n)
	lists := make([][]string, c.n)
	getStr := func(i int) vector.Value { return str[i] }
	getI64 := func(i int) vector.Value { return i64[i] }
	getF64 := func(i int) vector.Value { return f64[i] }
	getBool := func(i int) vector.Value { return bl[i] }
	// The nullable columns as a Go programmer keeps them: values beside
	// a validity slice (as database/sql's NullInt64 does), and the
	// output's the same way.
	y, yok, b, bok := c.y.I64[:c.n], make([]bool, c.n), c.b.Bools[:c.n], make([]bool, c.n)
	for i := range c.n {
		yok[i], bok[i] = !c.y.IsNull(i), !c.b.IsNull(i)
	}
	ok := make([]bool, c.n)
	nullable := func(get func(int) vector.Value) func(int) vector.Value {
		return func(i int) vector.Value {
			if !ok[i] {
				return nil
			}
			return get(i)
		}
	}
	return map[string]ownLoop{
		"arith-nulls": {func() {
			for i, x := range c.x {
				i64[i], ok[i] = y[i]*3-x, yok[i]
			}
		}, nullable(getI64)},
		"logic": {func() {
			// (x < 30 AND y > 40) OR NOT b, nulls as SQL's three values.
			for i, x := range c.x {
				and, andOK := false, true
				if x < 30 {
					and, andOK = y[i] > 40, yok[i]
				}
				not := !b[i]
				switch {
				case andOK && and, bok[i] && not:
					bl[i], ok[i] = true, true
				case andOK && bok[i]:
					bl[i], ok[i] = false, true
				default:
					ok[i] = false
				}
			}
		}, nullable(getBool)},
		"case": {func() {
			for i, x := range c.x {
				switch {
				case x < 30:
					str[i] = "young"
				case x < 60:
					str[i] = "mid"
				default:
					str[i] = "old"
				}
			}
		}, getStr},
		"case-simple": {func() {
			for i, x := range c.x {
				switch x % 3 {
				case 0:
					i64[i], ok[i] = 100, true
				case 1:
					i64[i], ok[i] = y[i], yok[i]
				default:
					i64[i], ok[i] = x, true
				}
			}
		}, nullable(getI64)},
		"coalesce": {func() {
			for i, x := range c.x {
				if yok[i] {
					i64[i] = y[i]
				} else {
					i64[i] = x
				}
			}
		}, getI64},
		"string-lower": {func() {
			for i, s := range c.s {
				str[i] = strings.ToLower(s)
			}
		}, getStr},
		"string-substring": {func() {
			for i, s := range c.s {
				str[i] = runeSlice(s, 1, 3)
			}
		}, getStr},
		"string-left": {func() {
			for i, s := range c.s {
				str[i] = runeSlice(s, 0, 4)
			}
		}, getStr},
		"string-trim": {func() {
			for i, s := range c.s {
				str[i] = strings.TrimSpace(s)
			}
		}, getStr},
		"string-size": {func() {
			for i, s := range c.s {
				i64[i] = int64(utf8.RuneCountInString(s))
			}
		}, getI64},
		"string-split": {func() {
			for i, s := range c.s {
				lists[i] = strings.Split(s, "_")
			}
		}, func(i int) vector.Value {
			l := make([]vector.Value, len(lists[i]))
			for k, p := range lists[i] {
				l[k] = p
			}
			return l
		}},
		"string-startswith": {func() {
			for i, s := range c.s {
				bl[i] = strings.HasPrefix(s, " Na")
			}
		}, getBool},
		"temporal-year": {func() {
			for i, d := range days {
				i64[i], _, _ = temporal.CivilFromDays(d)
			}
		}, getI64},
		"temporal-truncate": {func() {
			for i, d := range days {
				y, m, _ := temporal.CivilFromDays(d)
				i64[i] = temporal.DaysFromCivil(y, m, 1)
			}
		}, func(i int) vector.Value { return temporal.Date{Days: i64[i]} }},
		"temporal-construct": {func() {
			for i, x := range c.x {
				i64[i] = temporal.DaysFromCivil(1960+x, 1+x%12, 1+x%28)
			}
		}, func(i int) vector.Value { return temporal.Date{Days: i64[i]} }},
		"convert-tostring": {func() {
			for i, x := range c.x {
				str[i] = strconv.FormatInt(x, 10)
			}
		}, getStr},
		"convert-tointeger": {func() {
			for i, s := range c.sn {
				i64[i], _ = strconv.ParseInt(s, 10, 64)
			}
		}, getI64},
		"convert-tofloat": {func() {
			for i, s := range c.sn {
				f64[i], _ = strconv.ParseFloat(s, 64)
			}
		}, getF64},
		"convert-toboolean": {func() {
			for i, x := range c.x {
				bl[i] = x != 0
			}
		}, getBool},
	}
}

// runeSlice is the n characters of s from character start on (fewer
// where s ends first), found by ranging over its runes.
func runeSlice(s string, start, n int) string {
	from, to, k := len(s), len(s), 0
	for i := range s {
		if k == start {
			from = i
		}
		if k == start+n {
			to = i
			break
		}
		k++
	}
	return s[from:to]
}
